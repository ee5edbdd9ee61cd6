// Argument parsing shared by the bench scripts: --help, and one-line usage errors (exit 64) instead of a stack trace.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';

export interface BenchOption {
  type: 'string' | 'boolean';
  default?: string | boolean;
  value?: string;
  description: string;
}

type Values<T extends Record<string, BenchOption>> = { [K in keyof T]: T[K]['type'] extends 'boolean' ? boolean : T[K]['default'] extends string ? string : string | undefined };

export function benchHelp(script: string, summary: string, options: Record<string, BenchOption>): string {
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`;
    const def = o.default !== undefined && o.type === 'string' ? ` (default ${o.default})` : '';
    return `  ${flag.padEnd(24)}${o.description}${def}`;
  });
  return [`Usage: node dist/bench/${script}.js [options]`, '', summary, '', 'Options:', ...rows, `  ${'-h, --help'.padEnd(24)}Show this help`].join('\n');
}

/** The parsed options; prints the help and exits 0 on --help, prints one line and exits 64 on a bad argument. */
export function benchArgs<T extends Record<string, BenchOption>>(script: string, summary: string, options: T, argv = process.argv.slice(2)): Values<T> {
  const all = { ...options, help: { type: 'boolean', description: 'Show this help' } as BenchOption };
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(all).map(([n, o]) => [n, { type: o.type, ...(o.default !== undefined ? { default: o.default } : {}), ...(n === 'help' ? { short: 'h' } : {}) }])),
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    // Node's text goes on about positionals after '--': the first sentence is the mistake.
    const first = (error as Error).message.split(/\.\s|\n/)[0]!.replace(/\.$/, '');
    process.stderr.write(`${script}: ${first}. Run \`node dist/bench/${script}.js --help\`.\n`);
    process.exit(64);
  }
  if (values.help) {
    process.stdout.write(`${benchHelp(script, summary, options)}\n`);
    process.exit(0);
  }
  for (const [name, o] of Object.entries(options)) {
    const v = values[name];
    if (o.type === 'string' && typeof v === 'string' && o.value === 'N' && !/^\d+$/.test(v)) {
      process.stderr.write(`${script}: --${name} must be a whole number, got "${v}".\n`);
      process.exit(64);
    }
  }
  return values as Values<T>;
}

/** That `--db` names a file; else one line, naming the script that generates one, and exit 64 (not a stack trace). */
export function benchDatabase(script: string, db: string): void {
  if (existsSync(db)) return;
  process.stderr.write(`${script}: no database at ${db}. Generate one with \`node dist/bench/generate.js --out ${db}\`, or pass another with --db.\n`);
  process.exit(64);
}
