import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { PEOPLE_GRAM_ROWS, titleGramBits, startPostgres, type PgCluster } from '../support/postgres.js';
import { tempDir } from '../support/db.js';
import { run } from '../cli/cli.js';
import { CLI_PATH } from '../support/mcp.js';
import { copyDatabase, openStore } from '../../src/db/engine.js';
import { openDatabase } from '../../src/db/open.js';
import { indexTranscript } from '../../src/db/queries/search.js';

/** Every meeting's export record (syntheo.meeting/v1), by the SQLite Store. */
async function exportAll(path: string): Promise<unknown[]> {
  const store = await openStore(path, { create: false });
  try {
    const { meetings } = await store.meetings.list({}, { limit: 200, offset: 0 });
    return Promise.all(meetings.map((m) => store.meetings.export(m.id)));
  } finally {
    await store.close();
  }
}

const PASSAGES = 'SELECT kind, ref_id, word_offset, speaker, text FROM search_passages ORDER BY kind, ref_id, word_offset';
const REST = {
  proposals: 'SELECT id, meeting_id, kind, target_id, content, base_content, status, created_at FROM proposals ORDER BY id',
  folders: 'SELECT id, path, parent_id, meeting_count FROM folders ORDER BY id',
  settings: 'SELECT key, value FROM settings ORDER BY key',
  series: 'SELECT id, title, cadence FROM series ORDER BY id',
};

function sqliteRows(path: string, sql: string): unknown[] {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

/**
 * `syntheo db copy --from --to` spawned, and killed with SIGKILL once the words' first batch is on its way ("transcripts: 1 rows" printed),
 * before their last: "transcript_words: ..." (printed when the next table starts) never came.
 */
async function killedHalfWay(from: string, to: string): Promise<void> {
  const child = spawn(process.execPath, [CLI_PATH, 'db', 'copy', '--from', from, '--to', to], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('transcripts: 1 rows')) resolve();
    });
    child.once('exit', () => reject(new Error(`db copy ended before it was killed: ${out}`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  expect(out).not.toContain('transcript_words:');
}

describe.skipIf(needs('postgresql'))('syntheo db copy: SQLite -> PostgreSQL -> SQLite without loss', () => {
  let cluster: PgCluster;
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    cluster = await startPostgres();
    tmp = tempDir();
  });
  afterAll(() => {
    cluster?.destroy();
    tmp?.cleanup();
  });

  it('round-trips the demo to identical export JSON, proposals, folders, settings and search passages', async () => {
    const a = join(tmp.dir, 'a.db');
    const b = join(tmp.dir, 'b.db');
    const url = await cluster.createDatabase();
    expect((await run(['--db', a, 'demo'])).code).toBe(0);
    expect((await run(['--db', a, 'config', 'set', 'llm.model', 'llama3'])).code).toBe(0);
    // A title beyond ASCII: its grams `gu…` (migration 0009) are filled too.
    const edit = new BetterSqlite3(a);
    edit.prepare("UPDATE meetings SET title = title || ' r\u00e9union \u4f1a\u8b70' WHERE id = (SELECT min(id) FROM meetings)").run();
    edit.close();

    const there = await run(['--json', 'db', 'copy', '--from', a, '--to', url]);
    expect(there.stderr).toBe('');
    expect(there.code).toBe(0);
    const copied = JSON.parse(there.stdout) as { data: { tables: Record<string, number> } };
    expect(copied.data.tables.meetings).toBe(10);
    expect(copied.data.tables.transcript_words).toBe((sqliteRows(a, 'SELECT count(*) AS n FROM transcript_words')[0] as { n: number }).n);

    // PostgreSQL holds the same derived data: search passages and folder counts rebuilt there.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query(PASSAGES)).rows).toEqual(sqliteRows(a, PASSAGES));
      expect((await client.query(REST.folders)).rows).toEqual(sqliteRows(a, REST.folders));
      // The title grams (filled once at the end, their trigger set aside meanwhile): exactly their definition.
      const grams = await client.query<{ extra: number; missing: number; n: number }>(
        `SELECT (SELECT count(*) FROM (SELECT tag, started_at, meeting_id FROM meeting_grams EXCEPT ALL SELECT tag, started_at, meeting_id FROM meeting_gram_rows) x)::int AS extra,
                (SELECT count(*) FROM (SELECT tag, started_at, meeting_id FROM meeting_gram_rows EXCEPT ALL SELECT tag, started_at, meeting_id FROM meeting_grams) x)::int AS missing,
                (SELECT count(*) FROM meeting_grams)::int AS n`,
      );
      expect(grams.rows[0]).toMatchObject({ extra: 0, missing: 0 });
      expect(grams.rows[0]!.n).toBeGreaterThan(100);
      expect((await client.query("SELECT count(*)::int AS n FROM meeting_grams WHERE tag IN ('guc3a9', 'gue4bc9ae8adb0')")).rows[0].n).toBe(2);
      expect((await client.query("SELECT sum(n)::int AS n FROM meeting_tag_counts WHERE tag = 'guc3a9'")).rows[0].n).toBe(1);
      // The words' counts (migrations 0010-0011; filled once at the end, their trigger set aside meanwhile): each word's postings.
      const words = await client.query<{ wrong: number; words: number }>(
        `SELECT count(*) FILTER (WHERE c.n IS DISTINCT FROM p.n)::int AS wrong, count(*)::int AS words
         FROM search_word_totals c FULL JOIN (SELECT lexeme, count(*) AS n FROM search_postings GROUP BY lexeme) p ON p.lexeme = c.lexeme`,
      );
      expect(words.rows[0]!.wrong).toBe(0);
      expect(words.rows[0]!.words).toBeGreaterThan(50);
      expect((await client.query("SELECT count(*)::int AS n FROM pg_trigger WHERE tgname LIKE 'search_postings_counts_%' AND tgenabled = 'O'")).rows[0].n).toBe(4);
      // The tags' bits (migration 0019; their trigger stays on, for the tags' one statement), the ASCII title grams'
      // (0022), the title words of ASCII letters and their pairs (0030, 0033) and the participants' grams' (0023, filled at the end): each tag's
      // meetings, each meeting numbered.
      const bits = await client.query<{ wrong: number; tags: number; unnumbered: number }>(
        `WITH held AS (SELECT t.tag, n.n >> 12 AS block, bit_or(B'1'::bit(4096) >> (n.n & 4095)) AS bits
                       FROM (SELECT tag, meeting_id FROM meeting_tags UNION ALL SELECT tag, meeting_id FROM meeting_grams WHERE ${titleGramBits()} UNION ALL ${PEOPLE_GRAM_ROWS}) t
                       JOIN meeting_numbers n ON n.meeting_id = t.meeting_id GROUP BY 1, 2),
              kept AS (SELECT tag, block, bit_xor(bits) AS bits FROM meeting_tag_bits GROUP BY 1, 2)
         SELECT (SELECT count(*) FROM held h FULL JOIN kept k USING (tag, block) WHERE h.bits IS DISTINCT FROM k.bits)::int AS wrong,
                (SELECT count(DISTINCT tag) FROM kept)::int AS tags,
                (SELECT count(*) FROM meetings m WHERE NOT EXISTS (SELECT 1 FROM meeting_numbers n WHERE n.meeting_id = m.id))::int AS unnumbered`,
      );
      expect(bits.rows[0]).toMatchObject({ wrong: 0, unnumbered: 0 });
      expect(bits.rows[0]!.tags).toBeGreaterThan(20);
    } finally {
      await client.end();
    }

    const back = await run(['db', 'copy', '--from', url, '--to', b]);
    expect(back.code).toBe(0);
    // A line per table copied (not a terminal), the index build, then the summary.
    expect(back.stdout).toMatch(/^series: \d+ rows\nfolders: \d+ rows\nmeetings: 10 rows\n(\w+: \d+ rows\n)+building the search indexes\nCopied .*:\d+\/syntheo_\S+ to .*b\.db: series \d+, folders \d+, meetings 10, /);

    const original = await exportAll(a);
    expect(original).toHaveLength(10);
    expect(await exportAll(b)).toEqual(original);
    for (const sql of [...Object.values(REST), PASSAGES]) expect(sqliteRows(b, sql)).toEqual(sqliteRows(a, sql));
  });

  it('rebuilds the passages of a transcript longer than one batch (a turn spans batches), and puts back every index and foreign key', async () => {
    const a = join(tmp.dir, 'long.db');
    const db = openDatabase(a, { create: true });
    const now = '2026-01-01T00:00:00.000Z';
    db.sqlite.prepare("INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_long', 'Long', ?, ?, ?)").run(now, now, now);
    db.sqlite.prepare("INSERT INTO transcripts (id, meeting_id, source, word_count, created_at, updated_at) VALUES ('trn_long', 'mtg_long', 'import', 45000, ?, ?)").run(now, now);
    const insert = db.sqlite.prepare("INSERT INTO transcript_words (transcript_id, idx, text, start_ms, end_ms, speaker) VALUES ('trn_long', ?, ?, ?, ?, ?)");
    // Turns of 1 to 150 words (some longer than a passage), a null speaker among them; 45,000 words cross the copy's 20,000-word batches.
    db.sqlite.transaction(() => {
      for (let i = 0, turn = 0; i < 45_000; turn++) {
        const length = 1 + ((turn * 37) % 150);
        const speaker = turn % 5 === 4 ? null : `Speaker ${turn % 3}`;
        for (let k = 0; k < length && i < 45_000; k++, i++) insert.run(i, `w${i}`, i * 10, i * 10 + 9, speaker);
      }
    })();
    db.sqlite.transaction(() => indexTranscript(db.sqlite, 'trn_long', 'mtg_long'))();
    db.close();

    const url = await cluster.createDatabase();
    const fresh = await cluster.createDatabase();
    await (await openStore(fresh, { create: true })).close();
    const copied = await copyDatabase(a, url);
    expect(copied.tables.transcript_words).toBe(45_000);
    const schema = `SELECT conrelid::regclass::text AS t, conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = 'public'::regnamespace
                    UNION ALL SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2, 3`;
    const client = new pg.Client({ connectionString: url });
    const base = new pg.Client({ connectionString: fresh });
    await client.connect();
    await base.connect();
    try {
      const passages = (await client.query(PASSAGES)).rows;
      expect(passages.length).toBeGreaterThan(750);
      expect(passages).toEqual(sqliteRows(a, PASSAGES));
      expect((await client.query(schema)).rows).toEqual((await base.query(schema)).rows);
    } finally {
      await client.end();
      await base.end();
    }
  });

  it('killed half-way (kill -9 while the words are copied), it leaves the target empty and whole: the same copy then runs again', async () => {
    const a = join(tmp.dir, 'big.db');
    const db = openDatabase(a, { create: true });
    const now = '2026-01-01T00:00:00.000Z';
    // Five of the copy's 20,000-word batches: the kill lands within them (killedHalfWay checks it), and the two whole copies after it
    // cost a third of what 300,000 words did (6.3 + 6.8 s alone at load ~3).
    const WORDS = 100_000;
    db.sqlite.prepare("INSERT INTO meetings (id, title, started_at, created_at, updated_at) VALUES ('mtg_big', 'Big', ?, ?, ?)").run(now, now, now);
    db.sqlite.prepare("INSERT INTO transcripts (id, meeting_id, source, word_count, created_at, updated_at) VALUES ('trn_big', 'mtg_big', 'import', ?, ?, ?)").run(WORDS, now, now);
    const insert = db.sqlite.prepare("INSERT INTO transcript_words (transcript_id, idx, text, start_ms, end_ms, speaker) VALUES ('trn_big', ?, ?, ?, ?, 'Ann')");
    db.sqlite.transaction(() => {
      for (let i = 0; i < WORDS; i++) insert.run(i, `w${i % 5000}`, i * 10, i * 10 + 9);
    })();
    db.close();
    const url = await cluster.createDatabase();
    const fresh = await cluster.createDatabase();
    await (await openStore(fresh, { create: true })).close();

    await killedHalfWay(a, url);

    const client = new pg.Client({ connectionString: url });
    const base = new pg.Client({ connectionString: fresh });
    await client.connect();
    await base.connect();
    try {
      // The server ends the dead connection's transaction (rolled back) once it sees the socket closed.
      for (let i = 0; i < 200; i++) {
        const others = await client.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
        if (others.rows[0].n === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const counts = 'SELECT (SELECT count(*) FROM meetings)::int AS meetings, (SELECT count(*) FROM transcripts)::int AS transcripts, (SELECT count(*) FROM transcript_words)::int AS words';
      expect((await client.query(counts)).rows).toEqual([{ meetings: 0, transcripts: 0, words: 0 }]);
      const schema = `SELECT conrelid::regclass::text AS t, conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = 'public'::regnamespace
                      UNION ALL SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2, 3`;
      expect((await client.query(schema)).rows).toEqual((await base.query(schema)).rows);
    } finally {
      await client.end();
      await base.end();
    }
    const again = await run(['db', 'copy', '--from', a, '--to', url]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain(`transcript_words: ${WORDS} rows`);

    // The other way: PostgreSQL -> a new SQLite file, killed half-way: the file holds no meeting, and the copy runs again.
    const back = join(tmp.dir, 'back.db');
    await killedHalfWay(url, back);
    expect(sqliteRows(back, 'SELECT (SELECT count(*) FROM meetings) AS meetings, (SELECT count(*) FROM transcript_words) AS words')).toEqual([{ meetings: 0, words: 0 }]);
    const home = await run(['db', 'copy', '--from', url, '--to', back]);
    expect(home.code).toBe(0);
    expect(sqliteRows(back, 'SELECT count(*) AS words FROM transcript_words')).toEqual([{ words: WORDS }]);
  });

  it('names a participant PostgreSQL may not index (written before loads took the bound) and copies nothing', async () => {
    const path = join(tmp.dir, 'long-name.db');
    const db = openDatabase(path, { create: true });
    try {
      const now = '2026-03-01T10:00:00.000Z';
      db.sqlite.prepare("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES ('mtg_long', 'Long', ?, '', ?, ?)").run(now, now, now);
      // 1,200 CJK characters drawn at random (3,600 bytes): PostgreSQL's index refused such a name with error 54000 alone.
      let seed = 7;
      const cjk = Array.from({ length: 1200 }, () => String.fromCodePoint(0x4e00 + ((seed = (seed * 48271) % 2147483647) % 20000))).join('');
      db.sqlite.prepare("INSERT INTO participants (id, meeting_id, name, email, position) VALUES ('par_long', 'mtg_long', ?, NULL, 0)").run(cjk);
    } finally {
      db.close();
    }
    const url = await cluster.createDatabase();
    const copied = await run(['db', 'copy', '--from', path, '--to', url]);
    expect(copied.code).toBe(1);
    expect(copied.stderr).toContain('Participant par_long of meeting mtg_long has a name of 1200 characters; PostgreSQL may not index one longer than 500');
    // The way out, spelled for the database copied from.
    expect(copied.stderr).toContain(`syntheo --db ${JSON.stringify(path)} meetings export mtg_long > meeting.json`);
    const q = new pg.Pool({ connectionString: url, max: 1 });
    try {
      expect((await q.query('SELECT count(*)::int AS n FROM meetings')).rows[0].n).toBe(0);
    } finally {
      await q.end();
    }
  });

  it('refuses a target that already holds data, and changes nothing there', async () => {
    const a = join(tmp.dir, 'full.db');
    expect((await run(['--db', a, 'demo'])).code).toBe(0);
    const url = await cluster.createDatabase();
    expect((await run(['db', 'copy', '--from', a, '--to', url])).code).toBe(0);
    const again = await run(['db', 'copy', '--from', a, '--to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/The target database .*:\d+\/syntheo_\S+ already holds data: db copy only fills an empty database \(it never merges\)/);
    const usage = await run(['db', 'copy', '--from', a]);
    expect(usage.code).toBe(64);
  });
});
