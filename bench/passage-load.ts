// `node dist/bench/passage-load.js --url URL [--compare URL2]`: what keeping the words' counts (migrations 0010,
// 0011) costs a writer of passages on PostgreSQL. Passages of the database (4,000 by default) are inserted again, 20 a
// statement and a transaction, by 1 and by 2 writers at once; passages a second, and the median statement with one
// writer. Each database is measured with its counts' triggers on, and the first also with them off (what writing
// cost before 0010); the variants alternate round by round (each round in another order), so that all see the same
// machine. The passages are deleted after each round (not timed) and the tables vacuumed. The databases are opened
// without migrating them (compare a clone left at an older migration). Each database's counts are checked at the end:
// `the`'s count against its postings.
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { benchArgs } from './args.js';
import { median } from './stats.js';

const values = benchArgs('passage-load', "Passages written a second with the words' counts kept, against the same writes without them.", {
  url: { type: 'string', value: 'URL', description: 'A PostgreSQL database with passages (postgresql://...); also measured with the counts\' triggers off' },
  compare: { type: 'string', value: 'URL', description: 'Another database (e.g. a clone at an older migration), measured with its triggers on' },
  passages: { type: 'string', value: 'N', default: '4000', description: 'Passages written a round' },
  batch: { type: 'string', value: 'N', default: '20', description: 'Passages a statement (and a transaction)' },
  writers: { type: 'string', value: 'LIST', default: '1,2', description: 'Writers at once, comma-separated' },
  rounds: { type: 'string', value: 'N', default: '5', description: 'Rounds (each runs every variant and writer count), after one to warm the caches' },
});
if (!values.url) {
  process.stderr.write('passage-load: --url postgresql://USER@HOST/DATABASE is required.\n');
  process.exit(64);
}
const PASSAGES = Number(values.passages);
const BATCH = Number(values.batch);
const WRITERS = values.writers.split(',').map(Number);
const ROUNDS = Number(values.rounds);
const MARK = 'bench-passage-load';
const COUNT_TRIGGERS = ['search_postings_counts_ai', 'search_postings_counts_ad'];

interface Variant {
  name: string;
  pool: pg.Pool;
  counts: boolean;
}

type Passage = { meeting_id: string; speaker: string | null; text: string };

async function latestMigration(pool: pg.Pool): Promise<string> {
  const r = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
  return `migrations 0000-${String(r.rows[0]!.n - 1).padStart(4, '0')}`;
}

async function setCounts(pool: pg.Pool, on: boolean): Promise<void> {
  await pool.query(COUNT_TRIGGERS.map((t) => `ALTER TABLE search_postings ${on ? 'ENABLE' : 'DISABLE'} TRIGGER ${t}`).join('; '));
}

/** CPU time (user + system, ms) of a server process so far: read from /proc, so only with the server on this machine. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/**
 * One round: the passages written by `writers` connections at once, batch by batch; passages a second, each
 * statement's time, and the writers' server processes' CPU a statement (what the load of other work changes least).
 */
async function load(pool: pg.Pool, passages: Passage[], writers: number): Promise<{ perSecond: number; statements: number[]; cpuPerStatement: number }> {
  const batches: Passage[][] = [];
  for (let i = 0; i < passages.length; i += BATCH) batches.push(passages.slice(i, i + BATCH));
  const clients = await Promise.all(Array.from({ length: writers }, () => pool.connect()));
  const statements: number[] = [];
  try {
    const pids = await Promise.all(clients.map(async (c) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
    const cpu = pids.map(cpuMs);
    const t = performance.now();
    await Promise.all(
      clients.map(async (c, w) => {
        for (let b = w; b < batches.length; b += writers) {
          const rows = batches[b]!;
          await c.query('BEGIN');
          const s = performance.now();
          await c.query(
            `INSERT INTO search_passages (meeting_id, kind, ref_id, speaker, text) SELECT m, 'note', '${MARK}', s, t FROM unnest($1::text[], $2::text[], $3::text[]) AS u(m, s, t)`,
            [rows.map((r) => r.meeting_id), rows.map((r) => r.speaker), rows.map((r) => r.text)],
          );
          statements.push(performance.now() - s);
          await c.query('COMMIT');
        }
      }),
    );
    const perSecond = passages.length / ((performance.now() - t) / 1000);
    const used = pids.reduce((sum, pid, i) => sum + cpuMs(pid) - cpu[i]!, 0);
    return { perSecond, statements, cpuPerStatement: used / batches.length };
  } finally {
    for (const c of clients) c.release();
  }
}

async function cleanUp(pool: pg.Pool): Promise<void> {
  await pool.query('DELETE FROM search_passages WHERE ref_id = $1', [MARK]);
  const tables = ['search_passages', 'search_postings', 'search_tags', 'search_word_counts'];
  if ((await pool.query("SELECT to_regclass('search_word_deltas') AS t")).rows[0].t) tables.push('search_word_deltas');
  await pool.query(`VACUUM ${tables.join(', ')}`);
}

/** `the`'s kept count (base rows and, from 0011, its pending deltas) against its postings. */
async function theCounted(pool: pg.Pool): Promise<{ counted: number; postings: number }> {
  const deltas = (await pool.query("SELECT to_regclass('search_word_deltas') AS t")).rows[0].t !== null;
  const r = await pool.query<{ counted: number; postings: number }>(
    `SELECT ((SELECT coalesce(sum(n), 0) FROM search_word_counts WHERE lexeme = 'the')
             ${deltas ? "+ (SELECT coalesce(sum((counts ->> 'the')::bigint), 0) FROM search_word_deltas)" : ''})::int AS counted,
            (SELECT count(*) FROM search_postings WHERE lexeme = 'the')::int AS postings`,
  );
  return r.rows[0]!;
}

const first = new pg.Pool({ connectionString: values.url, max: Math.max(...WRITERS) + 1 });
const pools = [first, ...(values.compare ? [new pg.Pool({ connectionString: values.compare, max: Math.max(...WRITERS) + 1 })] : [])];
try {
  const variants: Variant[] = [{ name: 'counts off', pool: first, counts: false }];
  for (const pool of pools) variants.push({ name: `counts on, ${await latestMigration(pool)}`, pool, counts: true });
  // Passages spread over the whole database (every meeting's transcript is cut the same way).
  const passages = (
    await first.query<Passage>(`SELECT meeting_id, speaker, text FROM search_passages WHERE kind = 'transcript' AND id % 97 = 0 ORDER BY id LIMIT $1`, [PASSAGES])
  ).rows;
  for (const pool of pools) await cleanUp(pool);
  const results = new Map<string, { perSecond: number[]; statements: number[]; cpu: number[] }>();
  // Round 0 warms each database's caches and is not kept.
  for (let round = 0; round <= ROUNDS; round++) {
    for (const writers of round === 0 ? [1] : WRITERS) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      for (const v of order) {
        if (!v.counts) await setCounts(v.pool, false);
        try {
          const r = await load(v.pool, passages, writers);
          await cleanUp(v.pool);
          if (round === 0) continue;
          const key = `${v.name}|${writers}`;
          const kept = results.get(key) ?? { perSecond: [], statements: [], cpu: [] };
          kept.perSecond.push(r.perSecond);
          kept.cpu.push(r.cpuPerStatement);
          if (writers === 1) kept.statements.push(...r.statements);
          results.set(key, kept);
          process.stderr.write(`round ${round}, ${writers} writer(s), ${v.name}: ${r.perSecond.toFixed(0)} passages/s, ${r.cpuPerStatement.toFixed(2)} ms server CPU a statement\n`);
        } finally {
          if (!v.counts) await setCounts(v.pool, true);
        }
      }
    }
  }
  console.log(
    `| variant | ${WRITERS.map((w) => `${w} writer${w > 1 ? 's' : ''}: passages/s (median; rounds)`).join(' | ')} | one statement, 1 writer: median ms | server CPU a statement (ms, medians: ${WRITERS.join(' / ')} writers) |`,
  );
  console.log(`|-|${WRITERS.map(() => '-:').join('|')}|-:|-:|`);
  for (const v of variants) {
    const cells = WRITERS.map((w) => {
      const r = results.get(`${v.name}|${w}`)!;
      return `${median(r.perSecond).toFixed(0)} (${r.perSecond.map((x) => x.toFixed(0)).join(', ')})`;
    });
    const one = results.get(`${v.name}|${WRITERS[0]}`)!.statements;
    const cpu = WRITERS.map((w) => median(results.get(`${v.name}|${w}`)!.cpu).toFixed(2)).join(' / ');
    console.log(`| ${v.name} | ${cells.join(' | ')} | ${one.length ? median(one).toFixed(2) : '-'} | ${cpu} |`);
  }
  for (const [i, pool] of pools.entries()) {
    const c = await theCounted(pool);
    console.log(`database ${i + 1}: 'the' counted ${c.counted}, postings ${c.postings}${c.counted === c.postings ? '' : ' DIFFERENT'}`);
  }
} finally {
  for (const pool of pools) await pool.end();
}
