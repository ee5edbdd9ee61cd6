// `npm run bench`: one table of every benchmark and its budget. `--smoke` runs tiny sizes (seconds),
// which CI does so the benchmarks keep working; the numbers then mean nothing.
import { existsSync, mkdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { benchArgs } from './args.js';
import { generate } from './generate.js';
import { benchMatrix, matrixRows } from './matrix.js';
import { benchWrites } from './writes.js';
import { benchMcp } from './mcp.js';
import { benchWorker } from './worker.js';
import { benchPostgres } from './postgres.js';
import { printTable, type Row } from './stats.js';
import { PACKAGE_ROOT } from '../src/package.js';

const values = benchArgs('run', 'Run every benchmark and print one table with its budgets (`npm run bench`).', {
  smoke: { type: 'boolean', default: false, description: 'Tiny sizes (seconds), to check the benchmarks still work; the numbers mean nothing' },
  meetings: { type: 'string', value: 'N', description: 'Meetings in the generated database (default 100000; 1000 with --smoke)' },
  words: { type: 'string', value: 'N', description: 'Transcript words (default 10000000; 60000 with --smoke)' },
  db: { type: 'string', value: 'FILE', description: 'Database to use (generated when missing)' },
  calls: { type: 'string', value: 'N', description: 'Calls per measured tool (default 1000; 30 with --smoke)' },
  only: { type: 'string', value: 'NAME', description: 'Only one benchmark: mcp, matrix, writes or worker' },
  matrix: { type: 'boolean', default: false, description: 'Only the filter matrix of list_meetings and search_transcripts (same as --only matrix)' },
  engine: { type: 'string', value: 'NAME', description: 'sqlite (default), or postgres: the PostgreSQL Store against SQLite in the same run (needs --url; with --matrix, the filter matrix on both engines)' },
  url: { type: 'string', value: 'URL', description: 'With --engine postgres: an empty PostgreSQL database (postgresql://...), filled by db copy' },
  jobs: { type: 'string', value: 'N', description: 'With --engine postgres: queue jobs of 500 ms each (default 400; 16 with --smoke)' },
});
if (values.engine !== undefined && values.engine !== 'sqlite' && values.engine !== 'postgres') {
  process.stderr.write(`run: --engine must be sqlite or postgres, got "${values.engine}".\n`);
  process.exit(64);
}
if (values.engine === 'postgres' && !values.url) {
  process.stderr.write('run: --engine postgres needs --url postgresql://USER@HOST/DATABASE (an empty database).\n');
  process.exit(64);
}
const smoke = values.smoke!;
const meetings = Number(values.meetings ?? (smoke ? 1000 : 100_000));
const words = Number(values.words ?? (smoke ? 60_000 : 10_000_000));
const db = values.db ?? join(PACKAGE_ROOT, 'bench', '.data', smoke ? 'smoke.db' : `bench-${meetings}-${words}.db`);
const calls = Number(values.calls ?? (smoke ? 30 : 1000));

const rows: Row[] = [];
const started = performance.now();
const only = values.matrix ? 'matrix' : values.only;
// The generated database: for the MCP tools and the matrix (the writes and the worker make their own).
if ((!existsSync(db) || smoke) && (only === undefined || only === 'mcp' || only === 'matrix')) {
  mkdirSync(dirname(db), { recursive: true });
  process.stderr.write(`Generating ${meetings} meetings / ${words} words into ${db}\n`);
  const g = generate({ meetings, words, longest: Math.min(30_000, Math.floor(words / 4)), seed: 1, out: db, progress: !smoke });
  rows.push({ name: 'generate', value: `${g.seconds.toFixed(1)} s`, detail: `${g.meetings} meetings, ${g.words} words` });
}
// --engine postgres --matrix: the matrix on both engines, side by side (cases chosen from the SQLite file).
if (values.engine === 'postgres' && only === 'matrix') rows.push(...matrixRows(await benchMatrix({ db, url: values.url!, calls: smoke ? 3 : 30, budgetMs: smoke ? 200 : 4000 })));
else if (values.engine === 'postgres') rows.push(...(await benchPostgres({ sqlite: db, url: values.url!, calls, jobs: Number(values.jobs ?? (smoke ? 16 : 400)) })));
else {
  if (!only || only === 'matrix') rows.push(...matrixRows(await benchMatrix({ db, calls: smoke ? 3 : 30, budgetMs: smoke ? 200 : 4000 })));
  if (!only || only === 'mcp') {
    const mcp = await benchMcp({ db, calls, startupRuns: smoke ? 3 : 15 });
    rows.push(...mcp.rows);
  }
}
if (values.engine !== 'postgres' && (!only || only === 'writes')) rows.push(...(await benchWrites({ meetings: smoke ? 100 : 2000, rounds: smoke ? 1 : 3 })));
if (values.engine !== 'postgres' && (!only || only === 'worker')) rows.push(...(await benchWorker({ jobs: smoke ? 5 : 40, uploadMb: smoke ? 16 : 1024 })));

const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`;
process.stdout.write(`${printTable(`Syntheo benchmarks — ${meetings} meetings, ${words} words — ${machine}`, rows)}\n`);
const over = rows.filter((r) => r.ok === false);
process.stdout.write(`\n${over.length === 0 ? 'Every budget met.' : `${over.length} budget(s) not met: ${over.map((r) => r.name).join('; ')}`} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
