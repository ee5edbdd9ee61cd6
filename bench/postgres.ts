// The PostgreSQL engine against SQLite in the same run (`npm run bench -- --engine postgres --url URL`):
// the generated SQLite database is copied into PostgreSQL (syntheo db copy), then the same Store calls
// are timed on both engines (p50, ratio), search server-side, and the queue: N claimers on jobs that
// each take 500 ms (standing in for transcription and the LLM), 1 claimer vs 8, double claims counted;
// then the read tools as an assistant sees them: `syntheo mcp --db <url>` against `syntheo mcp --db
// <sqlite file>` over stdio with the SDK's client, calls interleaved (same machine load for both).
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { copyDatabase } from '../src/db/copy.js';
import { PACKAGE_ROOT } from '../src/package.js';
import { openStore } from '../src/db/engine.js';
import { openPostgres } from '../src/db/postgres/open.js';
import { claimNextJob } from '../src/db/postgres/jobs.js';
import type { Store } from '../src/db/store.js';
import { median, ms, quantile, type Row } from './stats.js';

interface Options {
  sqlite: string;
  url: string;
  calls: number;
  jobs: number;
}

type Call = (s: Store, i: number) => Promise<unknown>;

async function time(store: Store, call: Call, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call(store, i);
    out.push(performance.now() - t);
  }
  return out;
}

/**
 * Upkeep sweeps at most when the copy's bitmaps are built (each up to 10 rounds of ~20 ms; 100k meetings: 466 rounds, 10 s;
 * and the participants' grams', migration 0027, 95 rounds of ~200 ms: ~19 s).
 */
const MAX_UPKEEP_SWEEPS = 2_000;

/**
 * Copies the SQLite database into PostgreSQL when the latter has no meeting (db copy), then builds the search bitmaps
 * as a running worker's upkeep would (a copy has none until it runs: `the` + the biggest folder at 100k meetings took
 * 23 ms a search before, 3.8 after) and analyses their tables, so that every row is timed on what a worker leaves; the
 * copy's row, else undefined.
 */
export async function fillPostgres(sqlite: string, url: string): Promise<Row | undefined> {
  const admin = await openPostgres(url, { create: true, max: 1 });
  try {
    if ((await admin.pool.query<{ n: number }>('SELECT count(*) AS n FROM meetings')).rows[0]!.n > 0) return undefined;
    const t = performance.now();
    const copied = await copyDatabase(sqlite, url);
    const copiedIn = (performance.now() - t) / 1000;
    const u = performance.now();
    const store = await openStore(url, { create: false });
    let rounds = 0;
    let finished = false;
    try {
      for (let sweep = 0; sweep < MAX_UPKEEP_SWEEPS && !finished; sweep++) {
        const upkeep = (await store.admin.maintain())?.bitmaps;
        rounds += upkeep?.rounds ?? 0;
        finished = !upkeep || (upkeep.units === 0 && !upkeep.busy);
      }
    } finally {
      await store.close();
    }
    await admin.pool.query('VACUUM (ANALYZE) search_bitmaps, search_bitmap_terms, search_bitmap_stale');
    const built = `${finished ? '' : 'partly '}built (${rounds} upkeep rounds${finished ? '' : `: still work left after ${MAX_UPKEEP_SWEEPS} sweeps`})`;
    return {
      name: 'db copy SQLite -> PostgreSQL',
      value: `${copiedIn.toFixed(1)} s`,
      detail: `${copied.tables.meetings} meetings, ${copied.tables.transcript_words} words; then the search bitmaps ${built} and analysed, ${((performance.now() - u) / 1000).toFixed(1)} s`,
    };
  } finally {
    await admin.close();
  }
}

export async function benchPostgres(o: Options): Promise<Row[]> {
  const rows: Row[] = [];
  const copy = await fillPostgres(o.sqlite, o.url);
  if (copy) rows.push(copy);
  const sqlite = await openStore(o.sqlite, { create: false });
  const postgres = await openStore(o.url, { create: false });
  try {
    const { all, total, folders, transcribed, words } = await probes(sqlite);
    const pick = <T>(xs: T[], i: number) => xs[(i * 7919) % xs.length]!;
    const calls: [string, Call][] = [
      ['meetings.list (default)', (s) => s.meetings.list({}, { limit: 20, offset: 0 })],
      ['meetings.list (deep offset)', (s, i) => s.meetings.list({}, { limit: 20, offset: (i * 104729) % total })],
      ['meetings.list (folder subtree)', (s, i) => s.meetings.list({ folderPath: pick(folders, i) }, { limit: 20, offset: 0 })],
      ['meetings.list (title fragment)', (s, i) => s.meetings.list({ query: pick(all, i).title.split(' ').slice(0, 2).join(' ') }, { limit: 20, offset: 0 })],
      ['meetings.get', (s, i) => s.meetings.get(pick(all, i).id)],
      ['transcripts.page (deep offset)', (s, i) => s.transcripts.page(pick(transcribed, i).id, { limit: 200, offset: Math.floor(pick(transcribed, i).transcript_word_count / 2) }, { wordTimings: false })],
      ['search.transcripts', (s, i) => s.search.transcripts({ query: pick(words, i) }, { limit: 10, offset: 0 })],
      ['proposals.list', (s) => s.proposals.list({ status: 'all' }, { limit: 20, offset: 0 })],
    ];
    for (const [name, call] of calls) {
      await time(sqlite, call, 3);
      await time(postgres, call, 3);
      const a = await time(sqlite, call, o.calls);
      const b = await time(postgres, call, o.calls);
      const ratio = median(b) / median(a);
      const search = name.startsWith('search');
      rows.push({
        name: `pg ${name}`,
        value: ms(median(b)),
        detail: `p99 ${ms(quantile(b, 0.99))}; SQLite p50 ${ms(median(a))}; ratio ${ratio.toFixed(2)}x`,
        budget: search ? 'p50 < 20 ms' : 'p50 <= 2x SQLite',
        // The budget as stated (it was "2x or within 1 ms", which labelled 12.9x "ok").
        ok: search ? median(b) < 20 : ratio <= 2,
      });
    }
  } finally {
    await sqlite.close();
    await postgres.close();
  }
  rows.push(...(await benchMcpEngines(o)));
  rows.push(...(await benchQueue(o.url, o.jobs)));
  return rows;
}

const CLI = join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js');

async function mcpClient(db: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--db', db], stderr: 'ignore', cwd: PACKAGE_ROOT });
  const client = new Client({ name: 'syntheo-bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  return client;
}

/**
 * What the calls are made with, read from the database: its 200 newest meetings, the total, the folders,
 * the transcribed meetings (over 500 words; else the longest there are: a small --smoke database) and
 * words of 7+ letters said in one of them (else 4+).
 */
async function probes(store: Store) {
  const all = (await store.meetings.list({}, { limit: 200, offset: 0 })).meetings;
  const total = (await store.meetings.list({}, { limit: 1, offset: 0 })).pagination.total;
  const folders = await store.folders.paths();
  const withWords = all.filter((m) => m.transcript_word_count > 0).sort((a, b) => b.transcript_word_count - a.transcript_word_count);
  const long = withWords.filter((m) => m.transcript_word_count > 500);
  const transcribed = long.length > 0 ? long : withWords.slice(0, 20);
  if (transcribed.length === 0) throw new Error('None of the 200 newest meetings has a transcript: generate the database with words (--words).');
  const said = (await store.transcripts.page(transcribed[0]!.id, { limit: 200, offset: 0 })).words.map((w) => w.text);
  const words = said.filter((w) => w.length > 6).length > 0 ? said.filter((w) => w.length > 6) : said.filter((w) => w.length > 3);
  return { all, total, folders, transcribed, words };
}

/** The read tools over MCP on both engines, each call on SQLite right before the same call on PostgreSQL. */
async function benchMcpEngines(o: Options): Promise<Row[]> {
  const store = await openStore(o.sqlite, { create: false });
  const { all, total, folders, transcribed, words } = await probes(store);
  await store.close();
  const pick = <T>(xs: T[], i: number) => xs[(i * 7919) % xs.length]!;
  const tools: [string, (i: number) => [string, Record<string, unknown>]][] = [
    ['list_meetings (default)', () => ['list_meetings', {}]],
    ['list_meetings (deep offset)', (i) => ['list_meetings', { offset: (i * 104729) % total }]],
    ['list_meetings (folder subtree)', (i) => ['list_meetings', { folder_path: pick(folders, i) }]],
    ['list_meetings (title fragment)', (i) => ['list_meetings', { query: pick(all, i).title.split(' ').slice(0, 2).join(' ') }]],
    ['get_meeting', (i) => ['get_meeting', { meeting_id: pick(all, i).id }]],
    ['get_meeting_transcript (deep offset)', (i) => ['get_meeting_transcript', { meeting_id: pick(transcribed, i).id, offset: Math.floor(pick(transcribed, i).transcript_word_count / 2), limit: 200 }]],
    ['search_transcripts', (i) => ['search_transcripts', { query: pick(words, i) }]],
    ['list_proposals', () => ['list_proposals', { status: 'all' }]],
  ];
  const sqlite = await mcpClient(o.sqlite);
  const postgres = await mcpClient(o.url);
  const rows: Row[] = [];
  try {
    const call = async (client: Client, [name, args]: [string, Record<string, unknown>]) => {
      const t = performance.now();
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean };
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result).slice(0, 300)}`);
      return performance.now() - t;
    };
    for (const [name, args] of tools) {
      for (let i = 0; i < 5; i++) {
        await call(sqlite, args(i));
        await call(postgres, args(i));
      }
      const a: number[] = [];
      const b: number[] = [];
      for (let i = 0; i < o.calls; i++) {
        a.push(await call(sqlite, args(i)));
        b.push(await call(postgres, args(i)));
      }
      const ratio = median(b) / median(a);
      rows.push({
        name: `mcp ${name}`,
        value: ms(median(b)),
        detail: `p99 ${ms(quantile(b, 0.99))}; SQLite p50 ${ms(median(a))}; ratio ${ratio.toFixed(2)}x`,
        budget: 'p50 <= 2x SQLite',
        ok: ratio <= 2,
      });
    }
  } finally {
    await sqlite.close();
    await postgres.close();
  }
  return rows;
}

/** Jobs that take 500 ms each, claimed by 1 then by 8 claimers; speed-up and double claims. */
async function benchQueue(url: string, jobs: number): Promise<Row[]> {
  const db = await openPostgres(url, { create: true, max: 12 });
  const rows: Row[] = [];
  try {
    const runWith = async (claimers: number): Promise<{ seconds: number; claims: number; distinct: number }> => {
      const now = new Date().toISOString();
      await db.pool.query(
        `WITH m AS (INSERT INTO meetings (id, title, started_at, source, created_at, updated_at)
                    SELECT 'mtg_bq' || g || '_' || $2, 'Bench job', $1, 'import', $1, $1 FROM generate_series(1, $3) g RETURNING id)
         INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, created_at, updated_at)
         SELECT 'job_' || substr(id, 5), id, '/bench.wav', 1, 0, 'wav', $1, $1 FROM m`,
        [now, `${claimers}_${Date.now()}`, jobs],
      );
      const claimed: string[] = [];
      const t = performance.now();
      await Promise.all(
        Array.from({ length: claimers }, async (_, w) => {
          for (;;) {
            const job = await claimNextJob(db.pool, `wrk_bench_${w}`, 60_000);
            if (job === null) return;
            claimed.push(job.id);
            await new Promise((r) => setTimeout(r, 500));
            await db.pool.query("UPDATE recording_imports SET status = 'done', summary_status = 'skipped_no_model', lease_expires_at = NULL WHERE id = $1", [job.id]);
          }
        }),
      );
      return { seconds: (performance.now() - t) / 1000, claims: claimed.length, distinct: new Set(claimed).size };
    };
    const one = await runWith(1);
    const eight = await runWith(8);
    const speedup = one.seconds / eight.seconds;
    rows.push({ name: `pg queue: ${jobs} jobs x 500 ms, 1 claimer`, value: `${one.seconds.toFixed(1)} s`, detail: `${one.claims} claims` });
    rows.push({
      name: `pg queue: ${jobs} jobs x 500 ms, 8 claimers`,
      value: `${eight.seconds.toFixed(1)} s`,
      detail: `speed-up ${speedup.toFixed(1)}x; ${eight.claims - eight.distinct} double claims`,
      budget: '>= 6x, 0 double claims',
      ok: speedup >= 6 && eight.claims === eight.distinct && one.claims === one.distinct,
    });
  } finally {
    await db.close();
  }
  return rows;
}

