import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Sqlite } from '../../src/db/open.js';
import { openDatabase } from '../../src/db/open.js';
import { listMeetings } from '../../src/db/queries/meetings.js';
import { searchTranscripts } from '../../src/db/queries/search.js';
import { checkIntegrity } from '../../src/db/queries/integrity.js';
import { handleTag } from '../../src/db/queries/participant-words.js';
import { buildSearchBits } from '../../src/db/queries/search-bits.js';
import { databaseMigratedTo, tempDir } from '../support/db.js';
import { makeMeeting, makeParticipant, makeTranscript } from '../support/factories.js';

// Migration 0018: each participant's name and e-mail (participant_handles) is a tag of its meeting, so a participant
// fragment across words is a group of tags the indexes intersect, as a participant word is.

const page = { limit: 50, offset: 0 };
const total = (s: Sqlite, filter: Parameters<typeof listMeetings>[1]) => listMeetings(s, filter, page).pagination.total;
const found = (s: Sqlite, filter: Parameters<typeof searchTranscripts>[1]) => searchTranscripts(s, filter, page).pagination.total;

/** The meetings whose participants hold the fragment, read from the participants themselves. */
const carriers = (s: Sqlite, fragment: string): number =>
  s.prepare('SELECT count(DISTINCT meeting_id) FROM participants WHERE name LIKE ? OR email LIKE ?').pluck().get(`%${fragment}%`, `%${fragment}%`) as number;

/** The passages saying `word` of those meetings, from the index's text column and the participants. */
const passages = (s: Sqlite, word: string, fragment: string): number =>
  s
    .prepare(
      `SELECT count(*) FROM search_fts f JOIN search_passages p ON p.id = f.rowid WHERE search_fts MATCH ?
       AND p.meeting_id IN (SELECT meeting_id FROM participants WHERE name LIKE ? OR email LIKE ?)`,
    )
    .pluck()
    .get(`{text} : ${word}`, `%${fragment}%`, `%${fragment}%`) as number;

/** A meeting's names and e-mails as tags, read from the participants and participant_handles, not through the view. */
function handleTags(s: Sqlite, meetingId: string): string[] {
  const ids = s
    .prepare('SELECT DISTINCT h.id FROM participants p JOIN participant_handles h ON h.handle = p.name OR h.handle = p.email WHERE p.meeting_id = ? ORDER BY h.id')
    .pluck()
    .all(meetingId) as number[];
  return ids.map(handleTag);
}

describe('migration 0018: names and e-mails as tags', () => {
  it('gives a database written at 0017 the tags, in every index, without marking the bitmaps stale', () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'old.db');
      const old = databaseMigratedTo(path, 17) as unknown as Sqlite;
      const meetings: string[] = [];
      for (let i = 0; i < 12; i++) {
        const id = makeMeeting(old, { title: `M${i}`, folderPath: i % 3 === 0 ? 'Legal' : 'Sales' });
        // 14 passages each: `the` is dense enough (1/32 of the passages) for the bitmaps to keep it.
        const words = ['the', 'budget', i % 2 ? 'review' : 'pricing', 'of', 'the', 'quarter', 'and', 'the', i % 5 ? 'plan' : 'the'];
        makeTranscript(old, id, { texts: Array.from({ length: 820 }, (_, n) => words[(n * 7 + i) % words.length]!) });
        if (i % 4 !== 3) makeParticipant(old, id, { name: i % 2 ? 'Ines Kowalski' : 'Ines Kowalski 2', email: i % 2 ? 'ines@acme.test' : null });
        if (i % 3 === 1) makeParticipant(old, id, { name: 'Omar Haddad', email: 'omar@acme.test' });
        meetings.push(id);
      }
      // The bitmaps built over two blocks (a note's passage numbered past the first): what 0018 must leave, or reset.
      old.prepare("INSERT INTO search_passages (id, meeting_id, kind, ref_id, text) VALUES (4999, ?, 'note', 'x', 'x')").run(meetings[0]);
      old.prepare("UPDATE meetings SET note = 'the budget note' WHERE id = ?").run(meetings[0]);
      old.prepare('DELETE FROM search_passages WHERE id = 4999').run();
      // (Built by today's code, whose cell rows go to search_cells (0020): put where a database at 0017 held them; and
      // which keeps lists (0021) and said lists (0023), which a database at 0017 had not.)
      old.exec(`CREATE TABLE search_cells (term TEXT NOT NULL, block INTEGER NOT NULL, bits BLOB NOT NULL); CREATE UNIQUE INDEX search_cells_term_block_idx ON search_cells (term, block);
        CREATE TABLE search_lists (term TEXT NOT NULL, span INTEGER NOT NULL, ids BLOB NOT NULL, PRIMARY KEY (term, span)) WITHOUT ROWID; ALTER TABLE search_bits_dirty ADD tags TEXT;
        CREATE TABLE search_said (term TEXT NOT NULL, span INTEGER NOT NULL, ids BLOB NOT NULL, PRIMARY KEY (term, span)) WITHOUT ROWID;
        ALTER TABLE search_bits_dirty ADD said INTEGER NOT NULL DEFAULT 1; ALTER TABLE search_bits_dirty ADD text TEXT`);
      buildSearchBits(old);
      old.exec(`INSERT INTO search_bits (term, block, bits) SELECT term, block, bits FROM search_cells; DROP TABLE search_cells;
        DROP TABLE search_lists; DROP TABLE search_said; DELETE FROM search_bits_terms WHERE term GLOB 'list:*' OR term GLOB 'said:*';
        ALTER TABLE search_bits_dirty DROP COLUMN tags; ALTER TABLE search_bits_dirty DROP COLUMN said; ALTER TABLE search_bits_dirty DROP COLUMN text`);
      expect(old.prepare("SELECT count(*) FROM search_bits WHERE term = 'size:'").pluck().get()).toBe(2);
      const built = old.prepare("SELECT term, built FROM search_bits_terms WHERE term != 'size:' ORDER BY term").all();
      expect(built).toContainEqual({ term: 'text:the', built: 2 });
      expect(built).toContainEqual({ term: 'freq:the', built: 2 });
      expect(old.prepare("SELECT built FROM search_bits_terms WHERE term = 'size:'").pluck().get()).toBe(2);
      expect(old.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get()).toBe(0);
      const counts = old.prepare('SELECT word, passages FROM search_word_counts ORDER BY word').all();
      const before = old.prepare('SELECT search_tags FROM meetings WHERE id = ?').pluck().get(meetings[1]) as string;
      expect(before).not.toMatch(/\bh\d+/);
      (old as unknown as { close(): void }).close();

      const migrated = openDatabase(path, { create: false });
      try {
        const s = migrated.sqlite;
        for (const id of meetings) {
          const tags = (s.prepare('SELECT search_tags FROM meetings WHERE id = ?').pluck().get(id) as string).split(' ');
          const want = handleTags(s, id);
          expect(tags.filter((t) => /^h\d+$/.test(t))).toEqual(want);
          // meeting_tags and every passage hold them too.
          const rows = s.prepare("SELECT tag FROM meeting_tags WHERE meeting_id = ? AND tag GLOB 'h[0-9]*' ORDER BY tag").pluck().all(id) as string[];
          expect(rows).toEqual([...want].sort());
          expect(s.prepare('SELECT count(*) FROM search_passages WHERE meeting_id = ? AND tags IS NOT ?').pluck().get(id, tags.join(' '))).toBe(0);
        }
        // The index matches the passages' tags (FTS5 reads them from the content).
        s.prepare("INSERT INTO search_fts (search_fts, rank) VALUES ('integrity-check', 1)").run();
        for (const fragment of ['Ines Kowalski', 'Ines Kowalski 2', 's@acme', 'Omar Haddad', 'a Ko']) {
          expect(total(s, { participant: fragment }), fragment).toBe(carriers(s, fragment));
          expect(found(s, { query: 'budget', participant: fragment }), fragment).toBe(passages(s, 'budget', fragment));
        }
        expect(total(s, { participant: 'Ines Kowalski', folderPath: 'Legal' })).toBe(3);
        expect(found(s, { query: 'review', participant: 'Ines Kowalski' })).toBe(passages(s, 'review', 'Ines Kowalski'));
        expect(passages(s, 'review', 'Ines Kowalski')).toBeGreaterThan(0);
        // Nothing marked stale, no word counted again; the kept lengths (longer by the new tags) are built again. (But the
        // passages of the meetings without participants, which 0024 tags `hx` through the triggers.)
        expect(s.prepare('SELECT passage_id FROM search_bits_dirty ORDER BY 1').pluck().all()).toEqual(
          s.prepare('SELECT p.id FROM search_passages p WHERE NOT EXISTS (SELECT 1 FROM participants x WHERE x.meeting_id = p.meeting_id) ORDER BY 1').pluck().all(),
        );
        expect(s.prepare('SELECT word, passages FROM search_word_counts ORDER BY word').all()).toEqual(counts);
        expect(s.prepare("SELECT term, built FROM search_bits_terms WHERE term != 'size:' ORDER BY term").all()).toEqual(built);
        expect(s.prepare("SELECT built FROM search_bits_terms WHERE term = 'size:'").pluck().get()).toBe(0);
        expect(s.prepare("SELECT count(*) FROM search_bits WHERE term = 'size:'").pluck().get()).toBe(0);
        // (0020 moved the words' counts into search_cells; no length was left to move.)
        expect(s.prepare("SELECT count(*) FROM search_cells WHERE term = 'size:'").pluck().get()).toBe(0);
        expect(s.prepare("SELECT count(*) FROM search_cells WHERE term = 'freq:the'").pluck().get()).toBe(2);
        expect(s.prepare("SELECT count(*) FROM search_bits WHERE term GLOB 'freq:*'").pluck().get()).toBe(0);
        expect(checkIntegrity(s, { full: true }).search).toEqual([]);
        // Ranked as bm25() ranks, before the lengths are built again and after.
        const ranked = (rank: 'fts5' | 'computed') => searchTranscripts(s, { query: 'the budget' }, page, { rank }).hits.map((h) => `${h.meeting_id} ${h.offset}`);
        expect(ranked('computed')).toEqual(ranked('fts5'));
        buildSearchBits(s);
        expect(s.prepare("SELECT built FROM search_bits_terms WHERE term = 'size:'").pluck().get()).toBe(2);
        expect(ranked('computed')).toEqual(ranked('fts5'));
        expect(checkIntegrity(s, { full: true }).search).toEqual([]);

        // The writers keep them: a new name (its handle made before the tags read it), a rename, a move.
        makeParticipant(s, meetings[3]!, { name: 'Zoe Park', email: 'zoe@park.test' });
        expect([total(s, { participant: 'Zoe Park' }), found(s, { query: 'budget', participant: 'e@park' })]).toEqual([1, passages(s, 'budget', 'Zoe Park')]);
        s.prepare("UPDATE participants SET name = 'Ines Nowak' WHERE name = 'Ines Kowalski'").run();
        expect(total(s, { participant: 'Ines Kowalski' })).toBe(carriers(s, 'Ines Kowalski'));
        expect(found(s, { query: 'budget', participant: 'Ines Nowak' })).toBe(passages(s, 'budget', 'Ines Nowak'));
        expect(carriers(s, 'Ines Nowak')).toBeGreaterThan(0);
        s.prepare("UPDATE participants SET meeting_id = ? WHERE name = 'Zoe Park'").run(meetings[0]);
        expect(handleTags(s, meetings[3]!)).toEqual([]);
        expect(total(s, { participant: 'Zoe Park', folderPath: 'Legal' })).toBe(1);
        expect(found(s, { query: 'pricing', participant: 'Zoe Park' })).toBe(passages(s, 'pricing', 'Zoe Park'));
        expect(passages(s, 'pricing', 'Zoe Park')).toBeGreaterThan(0);
        expect(checkIntegrity(s, { full: true }).search).toEqual([]);
      } finally {
        migrated.close();
      }
    } finally {
      cleanup();
    }
  });
});
