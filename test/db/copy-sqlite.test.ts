// `syntheo db copy` into SQLite sets the index triggers aside and builds every full-text index once at the end
// (src/db/queries/bulk-index.ts): the copy must answer every filter and search as the original does, hold the
// same derived rows, pass the full integrity check, and have its triggers back as the migrations made them.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyDatabase } from '../../src/db/engine.js';
import { openDatabase, type Sqlite } from '../../src/db/open.js';
import { listMeetings, type MeetingFilter } from '../../src/db/queries/meetings.js';
import { searchTranscripts } from '../../src/db/queries/search.js';
import { checkIntegrity } from '../../src/db/queries/integrity.js';
import { run } from '../cli/cli.js';
import { tempDir } from '../support/db.js';
import { makeMeeting, makeParticipant } from '../support/factories.js';

// Participant-word tags (`p` + participant_words id) and name tags (`h` + participant_handles id) name a word or a
// name by its id in each database: read as the word or the name (and tags in any order).
const DERIVED = {
  tags: 'SELECT id, search_tags AS tags FROM meetings ORDER BY id',
  meetingTags: 'SELECT tag AS tags, started_at, meeting_id FROM meeting_tags',
  keys: 'SELECT key, meeting_id FROM meeting_keys ORDER BY key',
  passages: 'SELECT kind, ref_id, word_offset, speaker, text, tags FROM search_passages ORDER BY kind, ref_id, word_offset',
  indexed:
    "SELECT (SELECT count(*) FROM search_fts) AS fts, (SELECT count(*) FROM meeting_titles) AS titles, (SELECT count(*) FROM participant_handles) AS handles, (SELECT count(*) FROM meeting_terms WHERE meeting_terms MATCH 'x65') AS terms",
  triggers: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name",
};

function rows(s: Sqlite, sql: string): unknown[] {
  const word = s.prepare('SELECT word FROM participant_words WHERE id = ?').pluck();
  const handle = s.prepare('SELECT handle FROM participant_handles WHERE id = ?').pluck();
  const named = (t: string) =>
    /^p\d+$/.test(t) ? `p:${String(word.get(Number(t.slice(1))))}` : /^h\d+$/.test(t) ? `h:${String(handle.get(Number(t.slice(1))))}` : t;
  const out = (s.prepare(sql).all() as Record<string, unknown>[]).map((r) => (typeof r.tags === 'string' ? { ...r, tags: r.tags.split(' ').map(named).sort().join(' ') } : r));
  return sql.includes('ORDER BY') ? out : out.map((r) => JSON.stringify(r)).sort();
}

/** Hits as a set: passages that tie in rank come in passage id order, which a copy numbers anew. */
const hitSet = (r: ReturnType<typeof searchTranscripts>) => ({ total: r.pagination.total, hits: r.hits.map((h) => JSON.stringify(h)).sort() });

describe('syntheo db copy SQLite -> SQLite', () => {
  const tmp = tempDir();
  const from = join(tmp.dir, 'from.db');
  const to = join(tmp.dir, 'to.db');
  let a: Sqlite;
  let b: Sqlite;
  beforeAll(async () => {
    expect((await run(['--db', from, 'demo'])).code).toBe(0);
    const db = openDatabase(from, { create: false });
    // More participants and folders than the demo has: tags of several words, a meeting without participants.
    for (let i = 0; i < 12; i++) {
      const id = makeMeeting(db.sqlite, { title: `Copy check ${i} É`, folderPath: i % 3 === 0 ? 'Legal/Contracts/2026' : 'Sales', startedAt: `2026-0${1 + (i % 9)}-1${i % 10}T10:00:00.000Z` });
      for (let p = 0; p < i % 4; p++) makeParticipant(db.sqlite, id, { name: `Yuki Berg-${p}`, email: `yuki${p}@acme.test` });
    }
    db.close();
    await copyDatabase(from, to);
    a = openDatabase(from, { create: false }).sqlite;
    b = openDatabase(to, { create: false }).sqlite;
  });
  afterAll(() => {
    a?.close();
    b?.close();
    tmp.cleanup();
  });

  it('holds the same derived rows and triggers, and passes the full integrity check', () => {
    for (const [name, sql] of Object.entries(DERIVED)) expect(rows(b, sql), name).toEqual(rows(a, sql));
    expect(checkIntegrity(b, { full: true }).search).toEqual([]);
  });

  it('answers every filter of list_meetings and search_transcripts as the original', () => {
    const page = { limit: 200, offset: 0 };
    const participant = (a.prepare('SELECT name FROM participants ORDER BY id LIMIT 1').get() as { name: string }).name;
    const filters: MeetingFilter[] = [{}, { query: 'e' }, { query: 'co' }, { query: 'check' }, { participant: 'yuki' }, { participant }, { folderPath: 'Legal' }, { folderPath: 'Sales' }, { from: '2026-03-01T00:00:00.000Z' }];
    for (const f of filters) expect(listMeetings(b, f, page), JSON.stringify(f)).toEqual(listMeetings(a, f, page));
    const words = ['the', 'we', 'budget', 'roadmap'];
    for (const query of words)
      for (const f of [{}, { folderPath: 'Legal' }, { participant: 'yuki' }])
        expect(hitSet(searchTranscripts(b, { query, ...f }, page)), `${query} ${JSON.stringify(f)}`).toEqual(hitSet(searchTranscripts(a, { query, ...f }, page)));
  });
});
