// The layering rules of `npm run lint:deps` (.dependency-cruiser.cjs) still bite: the script of package.json,
// with the project's config, run on a small tree that breaks each rule once, reports each break, and
// reports nothing for the allowed imports next to them. A config that silently stops checking fails here.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: string };
  cycle?: { name: string }[];
}

/** The files of the tree, by path. Imports use `.js` as the sources do (nodenext). */
const TREE: Record<string, string> = {
  // A runtime cycle, a type-only cycle, a cycle through a dynamic import.
  'src/cyc/a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
  'src/cyc/b.ts': "import { a } from './a.js';\nexport function b(): number { return typeof a === 'function' ? 1 : 0; }\n",
  'src/typecyc/x.ts': "import type { Y } from './y.js';\nexport interface X { y?: Y }\n",
  'src/typecyc/y.ts': "import type { X } from './x.js';\nexport interface Y { x?: X }\n",
  'src/dyncyc/table.ts': "export const load = async (): Promise<number> => (await import('./cmd.js')).n;\n",
  'src/dyncyc/cmd.ts': "import { load } from './table.js';\nexport const n = typeof load === 'function' ? 1 : 0;\n",
  // Cycles in bench/ and tools/ count too.
  'bench/p.ts': "import { q } from './q.js';\nexport const p = (): number => q();\n",
  'bench/q.ts': "import { p } from './p.js';\nexport function q(): number { return typeof p === 'function' ? 1 : 0; }\n",
  'tools/srv/r.ts': "import { s } from './s.js';\nexport const r = (): number => s();\n",
  'tools/srv/s.ts': "import { r } from './r.js';\nexport function s(): number { return typeof r === 'function' ? 1 : 0; }\n",
  // better-sqlite3: allowed in src/db, not elsewhere (not even for a type); src/db's own type alias is fine.
  'src/db/open.ts': "import Driver from 'better-sqlite3';\nexport type Sqlite = Driver.Database;\nexport const open = (): Sqlite => new Driver(':memory:');\n",
  'src/worker/raw.ts': "import Driver from 'better-sqlite3';\nexport const raw = (): unknown => new Driver(':memory:');\n",
  'src/cli/typed.ts': "import type Driver from 'better-sqlite3';\nexport type Handle = Driver.Database;\n",
  // Outside src/db only the Store's door: its interface, engine.ts and pure leaves; never SQL modules or open.ts.
  'src/mcp/alias.ts': "import type { Sqlite } from '../db/open.js';\nexport type Handle = Sqlite;\n",
  'src/worker/sql.ts': "import { q } from '../db/queries.js';\nexport const sql = q;\n",
  'src/db/store.ts': 'export interface Store { close(): Promise<void> }\n',
  'src/db/engine.ts': "import type { Store } from './store.js';\nexport const openStore = async (): Promise<Store> => ({ close: async () => undefined });\n",
  'src/db/model/paths.ts': 'export const depth = (p: string): number => p.split("/").length;\n',
  'src/db/queries/pagination.ts': 'export const clamp = (n: number): number => Math.min(n, 200);\n',
  // Nothing of the app in the MCP process, nor MCP code in the app.
  'src/app/page.ts': 'export const page = 1;\n',
  'src/mcp/web.ts': "import { page } from '../app/page.js';\nexport const web = page;\n",
  'src/app/tool.ts': "import { tool } from '../mcp/tool.js';\nexport const t = tool;\n",
  // src/db below the apps; mcp and worker apart; src never reaches into test/, bench/, tools/.
  'src/db/up.ts': "import { tool } from '../mcp/tool.js';\nexport const up = tool;\n",
  'src/mcp/tool.ts': "import { job } from '../worker/job.js';\nexport const tool = job;\n",
  'src/worker/job.ts': "export const job = 1;\n",
  'src/worker/back.ts': "import { tool } from '../mcp/tool.js';\nexport const back = tool;\n",
  // (Leaves of their own: the cycles of bench/ and tools/ above are reached only when those folders are cruised.)
  'src/cli/dev.ts': "import { helper } from '../../test/helper.js';\nimport { b } from '../../bench/util.js';\nimport { t } from '../../tools/util.js';\nexport const dev = [helper, b, t];\n",
  'test/helper.ts': 'export const helper = 1;\n',
  'bench/util.ts': 'export const b = 1;\n',
  'tools/util.ts': 'export const t = 1;\n',
  // The CLI reaches MCP code only to start the server; the shared shapes import valibot and the vocabularies only.
  'src/cli/commands/load.ts': "import { tool } from '../../mcp/tool.js';\nexport const load = tool;\n",
  'src/cli/commands/mcp.ts': "export const serve = async (): Promise<unknown> => (await import('../../mcp/tool.js')).tool;\n",
  'src/db/schema/enums.ts': "export const KINDS = ['a', 'b'] as const;\n",
  'src/db/model/shapes.ts': "import { v } from 'valibot';\nimport { KINDS } from '../schema/enums.js';\nimport { clamp } from '../queries/pagination.js';\nexport const shapes = [v, KINDS, clamp];\n",
  'node_modules/valibot/package.json': JSON.stringify({ name: 'valibot', version: '0.0.0', main: 'index.js', types: 'index.d.ts' }),
  'node_modules/valibot/index.js': 'exports.v = 1;\n',
  'node_modules/valibot/index.d.ts': 'export declare const v: number;\n',
  // An import that resolves nowhere hides its edges: reported.
  'src/lost.ts': "import { gone } from './nowhere.js';\nexport const lost = gone;\n",
  // Fine: the apps use src/db and shared leaves; a leaf shared by two modules is no cycle.
  'src/shared/leaf.ts': 'export const leaf = 1;\n',
  'src/db/queries.ts': "import type { Sqlite } from './open.js';\nimport { leaf } from '../shared/leaf.js';\nexport const q = (s: Sqlite): unknown => [s, leaf];\n",
  'src/cli/ok.ts': "import type { Store } from '../db/store.js';\nimport { openStore } from '../db/engine.js';\nimport { depth } from '../db/model/paths.js';\nimport { clamp } from '../db/queries/pagination.js';\nexport const door = [openStore, depth, clamp] as unknown[] as Store[];\nimport { leaf } from '../shared/leaf.js';\nimport { job } from '../worker/job.js';\nexport const ok = [door, leaf, job];\n",
  'node_modules/better-sqlite3/package.json': JSON.stringify({ name: 'better-sqlite3', version: '0.0.0', main: 'index.js', types: 'index.d.ts' }),
  'node_modules/better-sqlite3/index.js': 'module.exports = class Database {};\n',
  'node_modules/better-sqlite3/index.d.ts': 'declare class Database { constructor(path: string); }\ndeclare namespace Database { type Database = InstanceType<typeof Database>; }\nexport = Database;\n',
};

let dir: string;
let exitCode: number | null;
let violations: Violation[];
let modules: string[];

/** Runs `npm run lint:deps` as package.json spells it (depcruise's bin, its arguments), plus `extra`. */
async function lintDeps(cwd: string, extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts['lint:deps']!;
  const [command, ...args] = script.split(/\s+/);
  expect(command).toBe('depcruise');
  const pkg = join(ROOT, 'node_modules', 'dependency-cruiser', 'package.json');
  const bin = (JSON.parse(readFileSync(pkg, 'utf8')) as { bin: Record<string, string> }).bin.depcruise!;
  const child = spawn(process.execPath, [join(dirname(pkg), bin), ...args, ...extra], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => void (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => void (stderr += d.slice(0, 10_000)));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  return { code, stdout, stderr };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'syntheo-deprules-'));
  for (const [path, text] of Object.entries(TREE)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  // The project's own config and compiler options, unchanged.
  copyFileSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  copyFileSync(join(ROOT, 'tsconfig.json'), join(dir, 'tsconfig.json'));
  // As npm test runs it (its exit code), and asking for JSON (the violations; that reporter always exits 0).
  const [plain, r] = await Promise.all([lintDeps(dir, []), lintDeps(dir, ['--output-type', 'json'])]);
  exitCode = plain.code;
  expect(r.code, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { summary: { violations: Violation[] }; modules: { source: string }[] };
  violations = out.summary.violations;
  modules = out.modules.map((m) => m.source);
}, 120_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The violations of one rule, as "from -> to". */
function of(rule: string): string[] {
  return violations
    .filter((v) => v.rule.name === rule)
    .map((v) => `${v.from} -> ${v.to}`)
    .sort();
}

describe('npm run lint:deps reports every break of the layering rules', () => {
  it('checks src/, bench/ and tools/, and fails (non-zero exit) on an error', () => {
    expect(modules).toEqual(expect.arrayContaining(['src/cyc/a.ts', 'bench/p.ts', 'tools/srv/r.ts']));
    expect(violations.every((v) => v.rule.severity === 'error')).toBe(true);
    expect(exitCode).not.toBe(0);
  });

  it('no-circular: runtime, type-only and dynamic-import cycles, in src/, bench/ and tools/', () => {
    // Each cycle is reported from (at least) one of its modules; nothing else is.
    const cycles = of('no-circular').map((edge) => edge.split(' -> ').sort().join(' <-> '));
    expect([...new Set(cycles)].sort()).toEqual([
      'bench/p.ts <-> bench/q.ts',
      'src/cyc/a.ts <-> src/cyc/b.ts',
      'src/dyncyc/cmd.ts <-> src/dyncyc/table.ts',
      'src/typecyc/x.ts <-> src/typecyc/y.ts',
      'tools/srv/r.ts <-> tools/srv/s.ts',
    ]);
  });

  it('sqlite-only-in-db: better-sqlite3 outside src/db, even a type import; src/db is fine', () => {
    expect(of('sqlite-only-in-db')).toEqual([
      'src/cli/typed.ts -> node_modules/better-sqlite3/index.js',
      'src/worker/raw.ts -> node_modules/better-sqlite3/index.js',
    ]);
  });

  it('db-is-below-the-apps, mcp-not-worker, worker-not-mcp', () => {
    expect(of('db-is-below-the-apps')).toEqual(['src/db/up.ts -> src/mcp/tool.ts']);
    expect(of('mcp-not-worker')).toEqual(['src/mcp/tool.ts -> src/worker/job.ts']);
    expect(of('worker-not-mcp')).toEqual(['src/worker/back.ts -> src/mcp/tool.ts']);
  });

  it('src-not-dev-trees: src/ never imports test/, bench/ or tools/', () => {
    expect(of('src-not-dev-trees')).toEqual(['src/cli/dev.ts -> bench/util.ts', 'src/cli/dev.ts -> test/helper.ts', 'src/cli/dev.ts -> tools/util.ts']);
  });

  it('store-is-the-door: outside src/db, no module that holds SQL, nor open.ts (even for a type)', () => {
    expect(of('store-is-the-door')).toEqual(['src/mcp/alias.ts -> src/db/open.ts', 'src/worker/sql.ts -> src/db/queries.ts']);
  });

  it('mcp-not-app, app-not-mcp', () => {
    expect(of('mcp-not-app')).toEqual(['src/mcp/web.ts -> src/app/page.ts']);
    expect(of('app-not-mcp')).toEqual(['src/app/tool.ts -> src/mcp/tool.ts']);
  });

  it('cli-not-mcp: the CLI imports MCP code only where it starts the server', () => {
    expect(of('cli-not-mcp')).toEqual(['src/cli/commands/load.ts -> src/mcp/tool.ts']);
  });

  it('shapes-are-a-leaf: src/db/model/shapes.ts imports valibot and the vocabularies only', () => {
    expect(of('shapes-are-a-leaf')).toEqual(['src/db/model/shapes.ts -> src/db/queries/pagination.ts']);
  });

  it('not-to-unresolvable: an import that resolves nowhere', () => {
    expect(of('not-to-unresolvable')).toEqual(['src/lost.ts -> ./nowhere.js']);
  });

  it('nothing else: the allowed imports are not reported', () => {
    const froms = new Set(violations.map((v) => v.from));
    for (const ok of ['src/cli/ok.ts', 'src/db/queries.ts', 'src/db/open.ts', 'src/db/engine.ts', 'src/shared/leaf.ts', 'src/cli/commands/mcp.ts']) expect(froms.has(ok)).toBe(false);
  });
});
