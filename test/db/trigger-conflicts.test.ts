// Another writer's statement with a conflict clause (INSERT OR REPLACE, an upsert) must leave the derived data as a
// plain write does (migration 0019): SQLite runs a trigger's INSERT OR IGNORE with the clause of the statement that
// fired it, so the participants' triggers replaced a person's handles and words under new ids (the other meetings
// kept tags naming the old ones), and the bitmaps' and meeting_tags' triggers failed under an upsert.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Sqlite } from '../../src/db/open.js';
import { listMeetings } from '../../src/db/queries/meetings.js';
import { TAG_ROWS_SAMPLE, checkIntegrity, repairSearchIndex } from '../../src/db/queries/integrity.js';
import { databaseMigratedTo, meetingTagsDrift, tempDir, testDbs } from '../support/db.js';

const db = testDbs();

const NOW = '2026-01-01T00:00:00.000Z';
const meeting = (s: Sqlite, id: string, day: number) =>
  s.prepare("INSERT INTO meetings (id, title, started_at, ended_at, source, created_at, updated_at) VALUES (?, ?, ?, ?, 'user', ?, ?)").run(id, `Sync ${id}`, `2026-01-0${day}T10:00:00.000Z`, `2026-01-0${day}T11:00:00.000Z`, NOW, NOW);
const participant = (s: Sqlite, id: string, meetingId: string, position = 0) =>
  s.prepare("INSERT INTO participants (id, meeting_id, name, email, position) VALUES (?, ?, 'Ann Lee', 'ann@x.test', ?)").run(id, meetingId, position);

/** Two meetings with Ann Lee, as plain writes leave them. */
function seed(s: Sqlite): void {
  meeting(s, 'm1', 1);
  meeting(s, 'm2', 2);
  participant(s, 'p1', 'm1');
  participant(s, 'p2', 'm2');
}

/** Meetings whose stored tags are not the ones the view computes, the trigram indexes that disagree with their tables, meeting_tags. */
function drift(s: Sqlite): string[] {
  const wrong = s.prepare('SELECT m.id FROM meetings m WHERE m.search_tags IS NOT (SELECT tags FROM meeting_search_tags v WHERE v.meeting_id = m.id)').pluck().all() as string[];
  for (const fts of ['participant_words_fts', 'participant_handles_fts'])
    try {
      s.prepare(`INSERT INTO ${fts} (${fts}, rank) VALUES ('integrity-check', 1)`).run();
    } catch {
      wrong.push(fts);
    }
  if (meetingTagsDrift(s) > 0) wrong.push('meeting_tags');
  return wrong;
}

const total = (s: Sqlite, participant: string) => listMeetings(s, { participant }, { offset: 0, limit: 10 }).pagination.total;
const handles = (s: Sqlite) => s.prepare('SELECT id, handle FROM participant_handles ORDER BY id').all();
const words = (s: Sqlite) => s.prepare('SELECT id, word FROM participant_words ORDER BY id').all();

describe('a write with a conflict clause of its own', () => {
  it('INSERT OR REPLACE of a participant keeps the ids of its names and words, so every meeting keeps finding it', () => {
    const s = db();
    seed(s);
    const [h, w] = [handles(s), words(s)];
    s.prepare("INSERT OR REPLACE INTO participants (id, meeting_id, name, email, position) VALUES ('p2', 'm2', 'Ann Lee', 'ann@x.test', 1)").run();
    expect(handles(s)).toEqual(h);
    expect(words(s)).toEqual(w);
    expect(drift(s)).toEqual([]);
    // "An": two characters, read from participant_words with LIKE; "Ann Lee" from the names' trigram index.
    expect([total(s, 'An'), total(s, 'Ann Lee'), total(s, 'ann@x')]).toEqual([2, 2, 2]);
  });

  it('an upsert of a participant, new or existing, writes and keeps the tags', () => {
    const s = db();
    seed(s);
    const upsert = s.prepare("INSERT INTO participants (id, meeting_id, name, email, position) VALUES (?, ?, ?, NULL, 3) ON CONFLICT(id) DO UPDATE SET name = excluded.name");
    upsert.run('p3', 'm1', 'Bo Chen');
    upsert.run('p2', 'm2', 'Cy Diaz');
    expect(drift(s)).toEqual([]);
    expect([total(s, 'Bo Chen'), total(s, 'Cy Diaz'), total(s, 'Ann Lee')]).toEqual([1, 1, 1]);
  });

  it('an upsert of a meeting, new or existing (its passages marked for the search bitmaps), neither fails nor leaves tags behind', () => {
    const s = db();
    seed(s);
    s.prepare("INSERT INTO summaries (id, meeting_id, title, content, position, source, created_at, updated_at) VALUES ('s1', 'm1', 'Summary', 'budget', 0, 'user', ?, ?)").run(NOW, NOW);
    // The first block of passage ids reserved for the bitmaps, as the worker's rounds do at 4,096 passages: a change of
    // one of them is marked for the next round.
    s.prepare('INSERT INTO search_bits_state (id, reserved, checked_passages) VALUES (1, 1, 0) ON CONFLICT (id) DO UPDATE SET reserved = 1').run();
    s.prepare("UPDATE summaries SET content = 'budget plan' WHERE id = 's1'").run();
    expect(s.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get()).toBeGreaterThan(0);
    s.prepare("INSERT INTO folders (id, path, name, parent_id, created_at) VALUES ('f1', 'Ops', 'Ops', NULL, ?)").run(NOW);
    const upsert = s.prepare(
      "INSERT INTO meetings (id, title, started_at, ended_at, folder_id, source, created_at, updated_at) VALUES (?, 'Again', ?, ?, 'f1', 'user', ?, ?) ON CONFLICT(id) DO UPDATE SET title = excluded.title, folder_id = excluded.folder_id",
    );
    upsert.run('m1', '2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z', NOW, NOW);
    upsert.run('m3', '2026-01-03T10:00:00.000Z', '2026-01-03T11:00:00.000Z', NOW, NOW);
    expect(drift(s)).toEqual([]);
    expect(listMeetings(s, { folderPath: 'Ops' }, { offset: 0, limit: 10 }).meetings.map((m) => m.id)).toEqual(['m3', 'm1']);
  });
});

describe("what SQLite's REPLACE still leaves", () => {
  it('a participant moved by a REPLACE keeps its name among the tags of the meeting it left: the full check finds it, the repair mends it', () => {
    const s = db();
    seed(s);
    expect(checkIntegrity(s, { full: true }).search).toEqual([]);
    // p1 moves from m1 to m2: SQLite deletes the old row without running its delete trigger.
    s.prepare("INSERT OR REPLACE INTO participants (id, meeting_id, name, email, position) VALUES ('p1', 'm2', 'Ann Lee', 'ann@x.test', 1)").run();
    expect(listMeetings(s, { participant: 'Ann Lee' }, { offset: 0, limit: 10 }).meetings.map((m) => m.id)).toEqual(['m2', 'm1']);
    expect(checkIntegrity(s, { full: true }).search).toEqual(['meetings.search_tags']);
    // The quick check (files over 256 MiB) leaves the view's comparison out.
    expect(checkIntegrity(s, { full: false }).search).toEqual([]);
    repairSearchIndex(s);
    expect(checkIntegrity(s, { full: true }).search).toEqual([]);
    expect(listMeetings(s, { participant: 'Ann Lee' }, { offset: 0, limit: 10 }).meetings.map((m) => m.id)).toEqual(['m2']);
  });

  it('a trigram index of names or words holding a row its table lacks is found', () => {
    const s = db();
    seed(s);
    s.prepare("INSERT INTO participant_words_fts (rowid, word) VALUES (999, 'ghost')").run();
    s.prepare("INSERT INTO participant_handles_fts (rowid, handle) VALUES (999, 'Ghost Writer')").run();
    expect(checkIntegrity(s, { full: false }).search).toEqual(['participant_words_fts', 'participant_handles_fts']);
  });
});

describe("meeting_tags against the meetings' stored tags", () => {
  /** A name's or e-mail's tag of a meeting. */
  const handleTagOf = (s: Sqlite, id: string) => (s.prepare('SELECT search_tags FROM meetings WHERE id = ?').pluck().get(id) as string).split(' ').find((t) => t.startsWith('h'))!;

  it('a row deleted or written by hand is found (the newest meetings by the quick check), and the repair mends it', () => {
    const s = db();
    seed(s);
    expect(checkIntegrity(s, { full: false }).search).toEqual([]);
    // m2 loses the rows of its participant's names and words.
    s.prepare("DELETE FROM meeting_tags WHERE meeting_id = 'm2' AND (tag LIKE 'h%' OR tag LIKE 'p%')").run();
    expect(checkIntegrity(s, { full: false }).search).toEqual(['meeting_tags']);
    repairSearchIndex(s);
    expect(checkIntegrity(s, { full: true }).search).toEqual([]);
    expect(meetingTagsDrift(s)).toBe(0);
    // A row m1's tags do not hold: another meeting's name.
    meeting(s, 'm3', 3);
    s.prepare("INSERT INTO participants (id, meeting_id, name, position) VALUES ('p3', 'm3', 'Bo Ek', 0)").run();
    s.prepare('INSERT INTO meeting_tags (tag, started_at, meeting_id) SELECT ?, started_at, id FROM meetings WHERE id = ?').run(handleTagOf(s, 'm3'), 'm1');
    expect(checkIntegrity(s, { full: false }).search).toEqual(['meeting_tags']);
    repairSearchIndex(s);
    expect(checkIntegrity(s, { full: true }).search).toEqual([]);
    expect(meetingTagsDrift(s)).toBe(0);
  });

  it(`beyond the newest ${TAG_ROWS_SAMPLE} meetings, the full check finds it`, () => {
    const s = db();
    seed(s);
    // Prepared once: preparing an INSERT into meetings compiles all of its triggers.
    const later = s.prepare("INSERT INTO meetings (id, title, started_at, ended_at, source, created_at, updated_at) VALUES (?, 'Later', ?, ?, 'user', ?, ?)");
    s.transaction(() => {
      for (let i = 0; i < TAG_ROWS_SAMPLE; i++)
        later.run(`n${i}`, `2026-02-01T10:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(3, '0')}Z`, '2026-02-01T11:00:00.000Z', NOW, NOW);
    })();
    // m1 is the oldest meeting: outside the quick check's sample.
    s.prepare("DELETE FROM meeting_tags WHERE meeting_id = 'm1' AND tag LIKE 'h%'").run();
    expect(checkIntegrity(s, { full: false }).search).toEqual([]);
    expect(checkIntegrity(s, { full: true }).search).toEqual(['meeting_tags']);
    // And a row left by a meeting that is gone (the foreign key's cascade off for this connection).
    repairSearchIndex(s);
    s.pragma('foreign_keys = OFF');
    s.prepare("DELETE FROM meetings WHERE id = 'm1'").run();
    s.pragma('foreign_keys = ON');
    expect(checkIntegrity(s, { full: true }).search).toEqual(['meeting_tags']);
  });
});

describe('migration 0019 on a file a REPLACE already damaged', () => {
  it('builds the trigram indexes again and gives the meetings their tags back', () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'old.db');
      const old = databaseMigratedTo(path, 18);
      seed(old);
      old.prepare("INSERT OR REPLACE INTO participants (id, meeting_id, name, email, position) VALUES ('p2', 'm2', 'Ann Lee', 'ann@x.test', 1)").run();
      // The damage, under 0018's triggers: m1 names ids that are gone, the trigram indexes hold rows their tables lost.
      expect(drift(old)).toEqual(['m1', 'participant_words_fts', 'participant_handles_fts']);
      old.close();
      const current = openDatabase(path, { create: false });
      try {
        expect(drift(current.sqlite)).toEqual([]);
        expect([total(current.sqlite, 'An'), total(current.sqlite, 'Ann Lee')]).toEqual([2, 2]);
      } finally {
        current.close();
      }
    } finally {
      cleanup();
    }
  });
});
