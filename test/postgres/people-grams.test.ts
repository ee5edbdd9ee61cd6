import { beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { needs } from '../support/system-tools.js';
import { flipTagBit, genericStatements, PEOPLE_GRAM_ROWS, storeForBlock } from '../support/postgres.js';
import { compileTags, ilike, listMeetings } from '../../src/db/postgres/meetings.js';
import type { Queryable } from '../../src/db/postgres/sql.js';
import { meetingTagBitsDrift } from '../../src/db/postgres/bitmaps.js';
import { MAX_GRAM_STRAYS, MAX_PARTICIPANT_HANDLES, MAX_PARTICIPANT_WORDS } from '../../src/db/queries/participant-words.js';
import { copyDatabase } from '../../src/db/engine.js';
import { isAscii } from '../../src/db/queries/unicode.js';
import type { MeetingFilter } from '../../src/db/queries/meetings.js';

// PostgreSQL keeps the meetings of each ASCII gram of the participants' names and e-mails (runs of 1-3 characters,
// lower-cased) as bits (migration 0023), XORed in by the participants' triggers as they change: a list with a fragment
// in too many names for tags is counted from them. The bits must be exactly those computed from the participants
// whoever wrote them (many connections at once on the same meetings, rolled-back transactions, renames, moves,
// deletes, meetings written again), after `db copy` and after the repair; and the lists must be those of ILIKE over
// every participant.

/** The grams of a name or e-mail as the migration defines them, written apart from its SQL. */
const gramsOf = (handle: string): string[] => {
  const text = handle.toLowerCase();
  const grams = new Set<string>();
  for (let i = 0; i < text.length; i++)
    for (let k = 1; k <= 3 && i + k <= text.length; k++) {
      const g = text.slice(i, i + k);
      if (isAscii(g)) grams.add(`q${Buffer.from(g).toString('hex')}`);
    }
  return [...grams].sort();
};

/** Each gram's blocks of bits as stored (the deltas XORed), or as computed from the participants: `tag block` -> bits. */
async function gramBits(q: Pick<pg.Pool, 'query'>, from: 'stored' | 'participants'): Promise<Map<string, string>> {
  const sql =
    from === 'stored'
      ? `SELECT tag, block, bit_xor(bits)::text AS bits FROM meeting_tag_bits WHERE tag >= 'q' AND tag < 'r' GROUP BY 1, 2 HAVING bit_count(bit_xor(bits)) > 0`
      : `SELECT g.tag, n.n >> 12 AS block, bit_or(B'1'::bit(4096) >> (n.n & 4095))::text AS bits
         FROM (${PEOPLE_GRAM_ROWS}) g JOIN meeting_numbers n ON n.meeting_id = g.meeting_id GROUP BY 1, 2`;
  return new Map((await q.query<{ tag: string; block: number; bits: string }>(sql)).rows.map((r) => [`${r.tag} ${r.block}`, r.bits]));
}

/** The meetings (newest first) with a participant whose name or e-mail holds the fragment, by ILIKE over every row. */
async function listedByParticipants(q: Pick<pg.Pool, 'query'>, filter: MeetingFilter): Promise<string[]> {
  const params: unknown[] = [ilike(filter.participant!)];
  const clauses = [`m.id IN (SELECT meeting_id FROM participants p WHERE p.name ILIKE $1 ESCAPE '\\' OR p.email ILIKE $1 ESCAPE '\\')`];
  if (filter.folderPath) clauses.push(`m.folder_id IN (SELECT id FROM folders WHERE path = $${params.push(filter.folderPath)})`);
  if (filter.query) clauses.push(`(m.title ILIKE $${params.push(ilike(filter.query))} ESCAPE '\\' OR m.id ILIKE $${params.length} ESCAPE '\\')`);
  if (filter.from) clauses.push(`m.started_at COLLATE "C" >= $${params.push(filter.from)}`);
  if (filter.to) clauses.push(`m.started_at COLLATE "C" <= $${params.push(filter.to.length === 10 ? `${filter.to}T23:59:59.999Z` : filter.to)}`);
  const sql = `SELECT m.id FROM meetings m WHERE ${clauses.join(' AND ')} ORDER BY m.started_at COLLATE "C" DESC, m.id COLLATE "C" DESC`;
  return (await q.query<{ id: string }>(sql, params)).rows.map((r) => r.id);
}

describe.skipIf(needs('postgresql'))('PostgreSQL participant grams as bits (migration 0023)', () => {
  const env = storeForBlock(10);
  /** People 1-1,200: `Pat PersonN`, `personN@corp.test`; `person1` is then in 311 names and as many e-mails. */
  const person = (n: number): [string, string | null] => [`Pat Person${n}`, `person${n}@corp.test`];
  /** Names holding `on1` but not `person1` (its strays), and 40 holding each triple of `pat p` but not it (past MAX_GRAM_STRAYS). */
  const strays: [string, string | null][] = [['Mon1ca Lee', null], ['Ron1 Ray', 'ron1@else.test'], ['Jon1y', null]];
  const manyStrays = Array.from({ length: 40 }, (_, i): [string, string | null] => [`Patty Kat Pz${i}`, null]);
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString();
  const insertMeeting = async (c: Pick<pg.Pool, 'query'>, id: string, i: number, people: [string, string | null][]) => {
    await c.query('INSERT INTO meetings (id, title, started_at, folder_id, created_at, updated_at) VALUES ($1, $1, $2, $3, $2, $2)', [id, at(i), i % 3 === 0 ? 'fld_1' : null]);
    await c.query('INSERT INTO participants (id, meeting_id, name, email, position) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[])', [
      people.map((_, k) => `ppl_${id}_${k}`),
      people.map(() => id),
      people.map(([name]) => name),
      people.map(([, email]) => email),
      people.map((_, k) => k),
    ]);
  };

  beforeAll(async () => {
    const { pool } = env;
    await pool.query("INSERT INTO folders (id, path, name, parent_id, created_at) VALUES ('fld_1', 'Team', 'Team', NULL, 'x')");
    // 200 meetings of 7 people, every person in at least one; a few strays among them.
    for (let m = 0; m < 200; m++) {
      const people = Array.from({ length: 7 }, (_, k) => person(((m * 7 + k) % 1200) + 1));
      if (m % 25 === 0) people.push(strays[(m / 25) % strays.length]!);
      if (m % 5 === 0) people.push(manyStrays[(m / 5) % manyStrays.length]!);
      await insertMeeting(pool, `mtg_${String(m).padStart(3, '0')}`, m, m % 11 === 0 ? [['Ola Berg', 'ola@else.test']] : people);
    }
    // Eight writers at once, one transaction in three rolled back, each also adding people to the same four meetings
    // (their rows locked in turn: each writer's "before" is what the one before it left).
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        for (let round = 0; round < 6; round++) {
          const c = await pool.connect();
          try {
            await c.query('BEGIN');
            const i = 300 + w * 10 + round;
            await insertMeeting(c, `mtg_w${i}`, i, [person(1 + ((i * 13) % 1200)), strays[i % strays.length]!]);
            const shared = `mtg_${String((round % 4) * 10).padStart(3, '0')}`;
            await c.query('INSERT INTO participants (id, meeting_id, name, email, position) VALUES ($1, $2, $3, $4, 99)', [`ppl_s${w}_${round}`, shared, `Shared${w} Person1${round}`, null]);
            await c.query(round % 3 === 2 ? 'ROLLBACK' : 'COMMIT');
          } finally {
            c.release();
          }
        }
      }),
    );
    // Renames, e-mails taken away, people moved to another meeting, deleted; meetings deleted, one written again.
    await pool.query("UPDATE participants SET name = 'Mon1ca Renamed' WHERE id IN ('ppl_mtg_001_0', 'ppl_mtg_002_1')");
    await pool.query("UPDATE participants SET email = NULL WHERE id IN ('ppl_mtg_003_0', 'ppl_mtg_004_2', 'ppl_mtg_005_3')");
    await pool.query("UPDATE participants SET meeting_id = 'mtg_011' WHERE id IN ('ppl_mtg_012_0', 'ppl_mtg_013_1')");
    await pool.query("UPDATE participants SET name = upper(name), email = 'x' || email WHERE meeting_id = 'mtg_020'");
    await pool.query("DELETE FROM participants WHERE meeting_id = 'mtg_030' AND position < 3");
    await pool.query("DELETE FROM meetings WHERE id IN ('mtg_040', 'mtg_041')");
    await insertMeeting(pool, 'mtg_040', 40, [['Pat Person1', null], ['Ron1 Ray', null]]);
  }, 120_000);

  it('defines a gram as every run of 1-3 ASCII characters of the lower-cased name or e-mail', async () => {
    for (const handle of ['Pat Person1', 'person1@corp.test', 'ÉMILE Østergaard', 'Jo\u0308rg', 'a', 'ß%_\\x', 'K\u212aelvin']) {
      const r = await env.pool.query<{ g: string }>('SELECT g FROM syntheo_people_grams(lower($1)) g ORDER BY g COLLATE "C"', [handle]);
      expect(
        r.rows.map((x) => x.g),
        handle,
      ).toEqual(gramsOf(handle.replace('\u212a', 'k')));
    }
  });

  it('keeps each gram exactly in the meetings whose participants hold it, through every write', async () => {
    const stored = await gramBits(env.pool, 'stored');
    expect(stored.size).toBeGreaterThan(1000);
    expect(stored).toEqual(await gramBits(env.pool, 'participants'));
    expect(await meetingTagBitsDrift(env.pool)).toBeUndefined();
  });

  it('lists exactly the meetings ILIKE over every participant gives, from the grams when alone', async () => {
    const { pool, store } = env;
    // The fixture's shape: fragments in more names than tags hold; `person1`'s gram has a few strays, `pat p`'s too many.
    const handlesWith = async (like: string, not?: string) =>
      (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM participant_handles WHERE handle ILIKE $1 ${not ? 'AND NOT handle ILIKE $2' : ''}`, not ? [like, not] : [like])).rows[0]!.n;
    expect(await handlesWith('%person1%')).toBeGreaterThan(MAX_PARTICIPANT_HANDLES);
    expect(await handlesWith('%pat p%')).toBeGreaterThan(MAX_PARTICIPANT_HANDLES);
    expect(await handlesWith('%on1%', '%person1%')).toBeGreaterThan(0);
    for (const triple of ['pat', 'at ', 't p']) expect(await handlesWith(`%${triple}%`, '%pat p%')).toBeGreaterThan(MAX_GRAM_STRAYS);
    const ways: Record<string, string> = {};
    let found = 0;
    // Dates: through the Store (a range of few meetings: each probed), and counted from the gram in the range's cover
    // (`gramRange: 0`), its first and last days' meetings outside it taken away (ranges ending or starting mid-day).
    const dates = [{ from: '2026-01-05' }, { from: '2026-01-03T05:30:00.000Z', to: '2026-01-07T12:00:00.000Z' }, { to: '2026-01-06' }, { from: '2026-01-02', to: '2026-01-02' }];
    const datedGrams = new Set<string>();
    // (`at` and `Pa`: 1-3 characters in a few words, `pat`, `patty`, `kat`, and most meetings; `1@` and `9@C`: in the
    // 120 e-mails of the numbers ending in 1 or 9, most meetings, counted from their gram. Across words and in enough
    // names for tags: `t person1`, 312, whose gram `on1` has strays; `y kat pz`, 37, whose gram has none, read as bits.)
    for (const participant of ['person1', 'PERSON1', 'rson1', 'pat p', 'PAT P', 'person', '@corp', 'son', 'n1', 'e', 'p', 'person1@', 'qqq', 'erson12', 'at', 'Pa', '1@', '9@C', 't person1', 'y kat pz'])
      for (const other of [{}, { folderPath: 'Team' }, ...dates, { folderPath: 'Team', ...dates[1] }, { query: '01' }, { query: 'mt', folderPath: 'Team' }]) {
        const filter: MeetingFilter = { participant, ...other };
        const all = await listedByParticipants(pool, filter);
        found += all.length;
        const listings = 'from' in other || 'to' in other ? [store.meetings.list, (f: MeetingFilter, p: { limit: number; offset: number }) => listMeetings(pool, f, p, { gramRange: 0 })] : [store.meetings.list];
        for (const list of listings)
          for (const [limit, offset] of [[20, 0], [5, 3], [7, all.length - 3], [50, 100]] as const) {
            const page = await list(filter, { limit, offset: Math.max(0, offset) });
            const label = `${JSON.stringify(filter)} limit ${limit} offset ${offset}${list !== listings[0] ? ' (gram)' : ''}`;
            expect(page.meetings.map((m) => m.id), label).toEqual(all.slice(Math.max(0, offset), Math.max(0, offset) + limit));
            expect(page.pagination.total, label).toBe(all.length);
          }
        if (listings.length > 1 && (await compileTags(pool, filter, { probeMany: true, gramRange: 0 }))?.gram) datedGrams.add(participant);
        if (Object.keys(other).length === 0) {
          const tags = await compileTags(pool, filter, { probeMany: true, counted: true });
          ways[participant] = tags?.gram ? (tags.gram.exact ? 'exact' : `gram ${tags.gram.text}`) : tags?.probe ? 'probe' : 'tags';
        }
      }
    expect(found).toBeGreaterThan(2000);
    // A gram within its bounds answers in one list statement; past them (`pat p`: 40 strays a triple) the list is asked
    // again without it.
    const client = await pool.connect();
    try {
      const statements = async (participant: string, seen = 'SELECT i.*', more: MeetingFilter = {}) => {
        let lists = 0;
        const counting = {
          query: (text: string | { text: string }, values?: unknown[]) => {
            if ((typeof text === 'string' ? text : text.text).includes(seen)) lists++;
            return (client.query as (text: unknown, values?: unknown[]) => Promise<unknown>)(text, values);
          },
        };
        await listMeetings(counting as unknown as Queryable, { participant, ...more }, { limit: 20, offset: 0 });
        return lists;
      };
      expect(await statements('person1')).toBe(1);
      expect(await statements('pat p')).toBe(2);
      // With a title fragment held by grams kept as bits (1-2 characters), counted from the gram too.
      expect(await statements('person1', 'meeting_tag_bits', { query: 'mt' })).toBeGreaterThan(0);
      // With dates, the range's meetings are read once (whether its gram counts), after its names are found too many.
      const rangeRead = 'FROM (SELECT 1 FROM meetings m WHERE';
      expect([await statements('pat p', rangeRead, dates[1]), await statements('Pat Person11', rangeRead, dates[1])]).toEqual([1, 0]);
    } finally {
      client.release();
    }
    // Fragments in too many names take their gram: the fragment itself, or its rarest triple (a tie: the first tag).
    expect(ways).toMatchObject({ person1: 'gram on1', PERSON1: 'gram on1', rson1: 'gram on1', son: 'exact', e: 'exact', p: 'exact', person: 'gram ers' });
    expect(ways).toMatchObject({ at: 'tags', Pa: 'tags', '1@': 'tags', '9@C': 'tags', 't person1': 'tags', 'y kat pz': 'tags' });
    // A list's names across words read as their gram's bits only when no name or e-mail holds the gram without them.
    const names = async (participant: string) => (await compileTags(pool, { participant }, { probeMany: true, counted: true }))?.participant;
    expect((await names('t person1'))?.group.length).toBeGreaterThanOrEqual(16);
    expect((await names('t person1'))?.gram).toBeUndefined();
    expect((await names('y kat pz'))?.group.length).toBeGreaterThanOrEqual(16);
    expect((await names('y kat pz'))?.gram).toMatch(/^q/);
    // Its gram read with its names' tags, in one statement (not in one of its own after them).
    const [names1, gram1] = ['syntheo_handles_like', 'WITH f AS (SELECT lower($1)'];
    const { ran, spy } = genericStatements(names1, gram1);
    try {
      expect((await names('y kat pz'))?.gram).toMatch(/^q/);
      expect((await names('t person1'))?.gram).toBeUndefined();
      expect([ran(names1), ran(gram1)]).toEqual([2, 0]);
    } finally {
      spy.mockRestore();
    }
    for (const participant of ['1@', '9@C']) {
      const tags = await compileTags(pool, { participant }, { probeMany: true, counted: true });
      expect(tags?.participant?.group.length, participant).toBeGreaterThan(MAX_PARTICIPANT_WORDS);
      expect(tags?.participant?.gram, participant).toBe(`q${Buffer.from(participant.toLowerCase()).toString('hex')}`);
    }
    // With dates, the same fragments take their gram; and so do those of 1-3 characters in a few words held by most
    // meetings (their words' rows are many within the dates, and most meetings walked hold them).
    expect([...datedGrams].sort()).toEqual([...Object.keys(ways).filter((f) => ways[f] !== 'probe' && ways[f] !== 'tags'), 'Pa', 'at'].sort());
  });

  it('copies them (db copy) and computes them again (the repair); the doctor finds a wrong one', async () => {
    const { cluster, pool, url } = env;
    const copy = await cluster.createDatabase('grams_copy');
    await copyDatabase(url, copy);
    const target = new (await import('pg')).default.Pool({ connectionString: copy, max: 2 });
    try {
      // Meetings are numbered again on the target: compared with its own participants.
      const copied = await gramBits(target, 'stored');
      expect(copied.size).toBeGreaterThan(1000);
      expect(copied).toEqual(await gramBits(target, 'participants'));
      expect(await meetingTagBitsDrift(target)).toBeUndefined();
    } finally {
      await target.end();
    }
    // A meeting's bit of a gram flipped by hand: the doctor names it; the repair computes every gram again.
    await flipTagBit(pool, 'q6f6e31', 'mtg_011');
    const drift = await meetingTagBitsDrift(pool);
    expect(drift?.examples).toContain('q6f6e31 0');
    await pool.query('SELECT syntheo_repair_meeting_tag_bits()');
    expect(await meetingTagBitsDrift(pool)).toBeUndefined();
    expect(await gramBits(pool, 'stored')).toEqual(await gramBits(pool, 'participants'));
  });
});
