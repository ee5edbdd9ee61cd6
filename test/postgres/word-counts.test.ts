// The words' counts (migration 0010): a one-word search_transcripts without filters totals its matches from
// search_word_counts (each word's deltas summed) instead of counting the word's postings. The counts must be exactly
// the postings of each word, whoever writes the passages and however many write at once (some rolled back, some
// under repeatable read), on a database migrated from 0009, after a truncate, through `db copy`'s fill and the
// doctor's repair; and the totals must be what the postings (and the GIN index) say.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { runAs, startPostgres, undoTitleWords, type PgCluster } from '../support/postgres.js';
import { seeded } from '../support/seeded.js';
import { tempDir } from '../support/db.js';
import { run } from '../cli/cli.js';
import { copyDatabase, openStore } from '../../src/db/engine.js';
import { openPostgres } from '../../src/db/postgres/open.js';
import { indexTranscript } from '../../src/db/postgres/transcripts.js';
import type { Store } from '../../src/db/store.js';

// `the` in nearly every passage (as at 100k meetings): its deltas pile up fastest and are summed most often.
const VOCABULARY = ['the', 'the', 'the', 'budget', 'review', 'launch', 'café', 'Zürich', 'q3', 'plan', 'hiring', 'roadmap'];
const QUERIES = ['the', 'budget', 'Review', 'cafe', 'zurich', 'q3', 'hiring', 'nowhere', 'the the'];

function words(rnd: ReturnType<typeof seeded>, n: number): string[] {
  return Array.from({ length: n }, () => rnd.one(VOCABULARY));
}

async function addMeeting(q: pg.ClientBase, id: string, text: string[]): Promise<void> {
  await q.query(`INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES ($1, $1, '2026-01-01T00:00:00.000Z', '', 'x', 'x')`, [id]);
  await q.query(`INSERT INTO transcripts (id, meeting_id, word_count, created_at, updated_at) VALUES ($1, $2, $3, 'x', 'x')`, [`trn_${id}`, id, text.length]);
  await q.query(`INSERT INTO transcript_words (transcript_id, idx, text) SELECT $1, i - 1, t FROM unnest($2::text[]) WITH ORDINALITY AS u(t, i)`, [`trn_${id}`, text]);
  await indexTranscript(q, `trn_${id}`, id);
}

/** Words whose summed count differs from their postings (none when exact), and how many passages say `the`. */
async function drift(q: pg.Pool): Promise<{ wrong: string[]; the: number }> {
  const r = await q.query<{ lexeme: string; counted: string; held: string }>(
    `SELECT coalesce(c.lexeme, p.lexeme) AS lexeme, coalesce(c.n, 0) AS counted, coalesce(p.n, 0) AS held
     FROM (SELECT lexeme, sum(n) AS n FROM search_word_counts GROUP BY lexeme HAVING sum(n) <> 0) c
     FULL JOIN (SELECT lexeme, count(*) AS n FROM search_postings GROUP BY lexeme) p ON p.lexeme = c.lexeme
     WHERE coalesce(c.n, 0) <> coalesce(p.n, 0)`,
  );
  const the = (await q.query<{ n: number }>("SELECT count(*)::int AS n FROM search_postings WHERE lexeme = 'the'")).rows[0]!.n;
  return { wrong: r.rows.map((w) => `${w.lexeme}: ${w.counted} counted, ${w.held} postings`), the };
}

/** The GIN index's answer: how many passages say every word of `query`. */
async function reference(q: pg.Pool, query: string): Promise<number> {
  return (await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM search_passages WHERE words @@ plainto_tsquery('simple', syntheo_fold($1))`, [query])).rows[0]!.n;
}

async function expectTotals(store: Store, q: pg.Pool): Promise<void> {
  for (const query of QUERIES) expect((await store.search.transcripts({ query }, { offset: 0, limit: 3 })).pagination.total, query).toBe(await reference(q, query));
}

describe.skipIf(needs('postgresql'))('PostgreSQL word counts (search_word_counts, migration 0010)', () => {
  let cluster: PgCluster;
  let url: string;
  let pool: pg.Pool;
  let store: Store;

  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
    store = await openStore(url, { create: true });
    pool = new pg.Pool({ connectionString: url, max: 8 });
  }, 60_000);

  afterAll(async () => {
    await pool?.end();
    await store?.close();
    cluster?.destroy();
  });

  /** One writer's round: new meetings, a transcript's tail re-indexed, notes, passages, deletions; alone or in a transaction (one in four rolled back). */
  async function write(rnd: ReturnType<typeof seeded>, w: number, round: number): Promise<void> {
    const c = await pool.connect();
    const single = rnd.int(3) === 0;
    try {
      const ids = (await c.query<{ id: string }>('SELECT id FROM meetings ORDER BY id')).rows.map((r) => r.id);
      if (!single) await c.query(rnd.int(4) === 0 ? 'BEGIN ISOLATION LEVEL REPEATABLE READ' : 'BEGIN');
      for (let n = single ? 1 : 1 + rnd.int(3); n > 0; n--) {
        const id = rnd.pick(ids);
        switch (id === undefined ? 0 : rnd.int(6)) {
          case 0:
            await addMeeting(c, `mtg_${w}_${round}_${n}`, words(rnd, 30 + rnd.int(200)));
            break;
          case 1: {
            // A transcript's tail rewritten and re-indexed (an appended chunk).
            const from = 10 + rnd.int(20);
            const done = await c.query(`UPDATE transcript_words SET text = $2 WHERE transcript_id = $1 AND idx >= $3`, [`trn_${id}`, rnd.one(VOCABULARY), from]);
            if ((done.rowCount ?? 0) > 0) await indexTranscript(c, `trn_${id}`, id!, from);
            break;
          }
          case 2:
            await c.query('UPDATE meetings SET note = $2 WHERE id = $1', [id, words(rnd, 5).join(' ')]);
            break;
          case 3:
            await c.query("INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ($1, 'note', $1, $2)", [id, words(rnd, 8).join(' ')]);
            break;
          case 4:
            await c.query("INSERT INTO summaries (id, meeting_id, content, created_at, updated_at) VALUES ($1, $2, $3, 'x', 'x')", [`sum_${w}_${round}_${n}`, id, words(rnd, 12).join(' ')]);
            break;
          default:
            // Meetings deleted less often than added, so that the database grows.
            if (rnd.int(3) === 0) await c.query('DELETE FROM meetings WHERE id = $1', [id]);
            else await addMeeting(c, `mtg_${w}_${round}_${n}`, words(rnd, 30 + rnd.int(200)));
        }
      }
      if (!single) await c.query(rnd.int(4) === 0 ? 'ROLLBACK' : 'COMMIT');
    } catch (error) {
      if (!single) await c.query('ROLLBACK');
      // Another writer deleted the meeting first (a foreign key), a repeatable-read writer met a concurrent change, or two transactions took two meetings in opposite orders.
      if (!['23503', '40001', '40P01'].includes((error as { code?: string }).code ?? '')) throw error;
    } finally {
      c.release();
    }
  }

  it('every word counts exactly its postings after many concurrent writers (some rolled back), and one-word totals match', async () => {
    let done = false;
    const mismatches: string[] = [];
    // Meanwhile: each one-word total is what the postings say in the same snapshot.
    const reader = (async () => {
      while (!done) {
        const r = await pool.query<{ counted: number; held: number }>(
          "SELECT (SELECT coalesce(sum(n), 0) FROM search_word_counts WHERE lexeme = 'the')::int AS counted, (SELECT count(*) FROM search_postings WHERE lexeme = 'the')::int AS held",
        );
        if (r.rows[0]!.counted !== r.rows[0]!.held) mismatches.push(JSON.stringify(r.rows[0]));
      }
    })();
    await Promise.all(
      Array.from({ length: 6 }, async (_, w) => {
        const rnd = seeded(1000 + w);
        for (let round = 0; round < 60; round++) await write(rnd, w, round);
      }),
    );
    done = true;
    await reader;
    expect(mismatches).toEqual([]);
    const d = await drift(pool);
    expect(d.wrong).toEqual([]);
    expect(d.the).toBeGreaterThan(50);
    await expectTotals(store, pool);
    // The writers' many deltas were summed: `the` (in nearly every statement's passages, ~500 here) keeps few rows
    // (32 + 8 on average: its rows are counted by one statement in eight, at random; more than 100 about once in 10^6).
    const rows = (await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM search_word_counts WHERE lexeme = 'the'")).rows[0]!.n;
    expect(rows).toBeLessThanOrEqual(100);
  }, 180_000);

  it('a truncate of the passages leaves no count; new passages are counted again', async () => {
    const other = await cluster.createDatabase();
    const s = await openStore(other, { create: true });
    const q = new pg.Pool({ connectionString: other, max: 2 });
    try {
      const c = await q.connect();
      try {
        await addMeeting(c, 'mtg_t', words(seeded(7), 50));
        await c.query('TRUNCATE search_passages');
        expect((await c.query('SELECT count(*)::int AS n FROM search_word_counts')).rows[0].n).toBe(0);
        await c.query("INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_t', 'note', 'mtg_t', 'the plan the')");
      } finally {
        c.release();
      }
      expect((await drift(q)).wrong).toEqual([]);
      expect((await s.search.transcripts({ query: 'the' }, { offset: 0, limit: 1 })).pagination.total).toBe(1);
    } finally {
      await q.end();
      await s.close();
    }
  });

  it('a database migrated from 0009 gets its counts from migration 0010, and roles made before may not write them', async () => {
    const old = await cluster.createDatabase();
    const db = await openPostgres(old, { create: true });
    const c = await db.pool.connect();
    try {
      // Back to 0009: no table, no triggers, no 0010 (nor 0012) in the history.
      await undoTitleWords(c);
      await c.query('DROP TABLE search_word_counts');
      await c.query('DROP FUNCTION syntheo_search_word_counts(), syntheo_search_word_counts_truncate(), syntheo_repair_word_counts() CASCADE');
      await c.query('DELETE FROM drizzle.__drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM drizzle.__drizzle_migrations)');
      for (let m = 0; m < 8; m++) await addMeeting(c, `mtg_${m}`, words(seeded(m), 120));
    } finally {
      c.release();
      await db.close();
    }
    expect((await run(['--db', old, 'db', 'roles'])).code).toBe(0);
    // `db roles` migrates first: put 0010 back out again, the roles staying (their default privileges grant the new table).
    const back = new pg.Pool({ connectionString: old, max: 2 });
    await undoTitleWords(back);
    await back.query('DROP TABLE search_word_counts; DROP FUNCTION syntheo_search_word_counts(), syntheo_search_word_counts_truncate(), syntheo_repair_word_counts() CASCADE');
    await back.query('DELETE FROM drizzle.__drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM drizzle.__drizzle_migrations)');
    const s = await openStore(old, { create: false });
    try {
      expect((await drift(back)).wrong).toEqual([]);
      expect((await drift(back)).the).toBeGreaterThan(0);
      await expectTotals(s, back);
      const name = old.split('/').pop()!.split('?')[0]!;
      cluster.psql('CREATE ROLE ann9 LOGIN IN ROLE syntheo_assistant; CREATE ROLE worker9 LOGIN IN ROLE syntheo_app;', name);
      for (const user of ['ann9', 'worker9']) {
        expect(await runAs(old, user, "INSERT INTO search_word_counts (lexeme, n) VALUES ('the', 5)"), user).toBe('42501');
        expect(await runAs(old, user, 'DELETE FROM search_word_counts'), user).toBe('42501');
        expect(await runAs(old, user, 'TRUNCATE search_word_counts'), user).toBe('42501');
        expect(await runAs(old, user, "SELECT sum(n) FROM search_word_counts WHERE lexeme = 'the'"), user).toBe('ok');
      }
      // The triggers keep the counts when the app's role writes passages.
      expect(await runAs(old, 'worker9', "INSERT INTO search_passages (meeting_id, kind, ref_id, text) VALUES ('mtg_1', 'note', 'mtg_1', 'xylophone the')")).toBe('ok');
      expect((await drift(back)).wrong).toEqual([]);
    } finally {
      await back.end();
      await s.close();
    }
  }, 60_000);

  it('roles made after: neither role writes the counts directly', async () => {
    expect((await run(['--db', url, 'db', 'roles'])).code).toBe(0);
    const name = url.split('/').pop()!.split('?')[0]!;
    cluster.psql('CREATE ROLE ann1 LOGIN IN ROLE syntheo_assistant; CREATE ROLE worker1 LOGIN IN ROLE syntheo_app;', name);
    for (const user of ['ann1', 'worker1']) {
      expect(await runAs(url, user, "INSERT INTO search_word_counts (lexeme, n) VALUES ('the', 5)"), user).toBe('42501');
      expect(await runAs(url, user, 'UPDATE search_word_counts SET n = 0'), user).toBe('42501');
      expect(await runAs(url, user, 'TRUNCATE search_word_counts'), user).toBe('42501');
    }
  });

  it('doctor: counts that differ from their postings are named, and the search repair recomputes them', async () => {
    // Its own passages (also when run alone, without the first test's).
    const c = await pool.connect();
    try {
      await addMeeting(c, 'mtg_doctor', ['the', 'budget', 'the', 'plan']);
    } finally {
      c.release();
    }
    expect((await store.admin.integrity({ full: true })).search).toEqual([]);
    const held = (await drift(pool)).the;
    await pool.query("INSERT INTO search_word_counts (lexeme, n) VALUES ('the', 1), ('zzforged', 2)");
    await pool.query("DELETE FROM search_word_counts WHERE lexeme = 'budget'");
    const report = (await store.admin.integrity({ full: true })).search.join('\n');
    expect(report).toContain('counts of search words (search_word_counts): 3 differ from their postings (budget: 0 counted, ');
    expect(report).toContain(`the: ${held + 1} counted, ${held} postings; zzforged: 2 counted, 0 postings)`);
    // A wrong count is a wrong total.
    expect((await store.search.transcripts({ query: 'the' }, { offset: 0, limit: 1 })).pagination.total).toBe(held + 1);
    await store.admin.repairSearch();
    expect((await store.admin.integrity({ full: true })).search).toEqual([]);
    expect((await drift(pool)).wrong).toEqual([]);
    await expectTotals(store, pool);
  }, 120_000);

  it('db copy fills the counts once at the end, exactly, and leaves their trigger on', async () => {
    const tmp = tempDir();
    try {
      const a = join(tmp.dir, 'demo.db');
      expect((await run(['--db', a, 'demo'])).code).toBe(0);
      const target = await cluster.createDatabase('copy');
      await copyDatabase(a, target);
      const copied = new pg.Pool({ connectionString: target, max: 1 });
      try {
        expect((await drift(copied)).wrong).toEqual([]);
        expect((await copied.query('SELECT count(*)::int AS n FROM search_word_counts')).rows[0].n).toBeGreaterThan(50);
        const trigger = await copied.query<{ on: string }>("SELECT tgenabled AS on FROM pg_trigger WHERE tgname = 'search_postings_counts_ai'");
        expect(trigger.rows).toEqual([{ on: 'O' }]);
        await copied.query("INSERT INTO meetings (id, title, started_at, note, created_at, updated_at) VALUES ('mtg_after', 'After', 'x', 'pangolin', 'x', 'x')");
        expect((await copied.query("SELECT sum(n)::int AS n FROM search_word_counts WHERE lexeme = 'pangolin'")).rows).toEqual([{ n: 1 }]);
      } finally {
        await copied.end();
      }
    } finally {
      tmp.cleanup();
    }
  }, 120_000);
});
