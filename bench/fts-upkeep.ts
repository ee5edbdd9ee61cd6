// The worker's full-text upkeep on a database as real use leaves it: the segments of each FTS5 index, then the
// upkeep's rounds (src/db/queries/fts-upkeep.ts, as store.admin.maintain() runs them) until none has work, the
// time each round and each statement held the write lock, the checkpoint after each round, the segments after,
// FTS5's integrity-check.
//   node dist/bench/generate.js --meetings 20000 --words 2000000 --live --out /tmp/live.db
//   node dist/bench/fts-upkeep.js --db /tmp/live.db        (the file is merged in place: run it on a copy)
// Then `node dist/bench/matrix.js --db FILE --no-round-trip` on the file before and after (bench/README.md).
import { checkpointIfLarge } from '../src/db/checkpoint.js';
import { openDatabase, type Sqlite } from '../src/db/open.js';
import { FTS_INDEXES, ftsShape, mergeFtsIndexes } from '../src/db/queries/fts-upkeep.js';
import { quantile } from './stats.js';

export interface UpkeepResult {
  before: Record<string, string>;
  after: Record<string, string>;
  rounds: number;
  statements: number;
  roundMs: { p50: number; p99: number; max: number };
  statementMs: { p50: number; p99: number; max: number };
  /** The checkpoint after each round (no write lock). */
  checkpointMs: { p50: number; p99: number; max: number };
  seconds: number;
}

const describe = (sqlite: Sqlite) =>
  Object.fromEntries(
    FTS_INDEXES.map((index) => {
      const shape = ftsShape(sqlite, index);
      return [index, shape ? `${shape.segments} segments, ${shape.pages} pages (largest ${shape.largest}), levels ${shape.levels.join('/')}` : 'no structure'];
    }),
  );

export function upkeep(file: string, options: { pages: number; budgetMs: number; maxRounds: number }): UpkeepResult {
  const db = openDatabase(file, { create: false });
  const sqlite = db.sqlite;
  const before = describe(sqlite);
  const started = performance.now();
  const rounds: number[] = [];
  const statements: number[] = [];
  const checkpoints: number[] = [];
  for (let round = 0; round < options.maxRounds; round++) {
    const t0 = performance.now();
    const steps = mergeFtsIndexes(sqlite, { pages: options.pages, budgetMs: options.budgetMs, first: round });
    const t1 = performance.now();
    // As maintain(): the WAL checkpointed after the round (PASSIVE: no write lock), rewound when large.
    checkpointIfLarge(sqlite);
    checkpoints.push(performance.now() - t1);
    if (steps.length === 0) break;
    rounds.push(t1 - t0);
    statements.push(...steps.map((s) => s.ms));
  }
  const seconds = (performance.now() - started) / 1000;
  for (const index of FTS_INDEXES) sqlite.prepare(`INSERT INTO ${index} (${index}, rank) VALUES ('integrity-check', 1)`).run();
  const after = describe(sqlite);
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const stats = (xs: number[]) => ({ p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: Math.max(0, ...xs) });
  return { before, after, rounds: rounds.length, statements: statements.length, roundMs: stats(rounds), statementMs: stats(statements), checkpointMs: stats(checkpoints), seconds };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { benchArgs } = await import('./args.js');
  const values = benchArgs('fts-upkeep', 'Merge the full-text indexes of a database as the worker does, round by round, until none has work; the file is changed in place.', {
    db: { type: 'string', value: 'FILE', description: 'Database (changed in place: use a copy)' },
    pages: { type: 'string', value: 'N', default: '64', description: 'Leaf pages a merge statement writes, about' },
    'budget-ms': { type: 'string', value: 'N', default: '20', description: 'No further statement in a round once this much time is spent' },
    'max-rounds': { type: 'string', value: 'N', default: '100000', description: 'Stop after this many rounds' },
  });
  if (!values.db) {
    process.stderr.write('fts-upkeep: --db FILE is required. Run `node dist/bench/fts-upkeep.js --help`.\n');
    process.exit(64);
  }
  const result = upkeep(values.db, { pages: Number(values.pages), budgetMs: Number(values['budget-ms']), maxRounds: Number(values['max-rounds']) });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
