// The bulk writers' path (src/db/queries/bulk-index.ts: the bench generator, `db copy` into SQLite): the row-by-row
// index triggers set aside, the indexes built once at the end. Whatever is written meanwhile (meetings with their
// participants before or after them, a change of folder, passages), the database after restore() must be the one the
// live triggers would have left: meeting_tags holding exactly each meeting's tags, every passage its meeting's tags,
// the same triggers, and the filters answering from them.
import { describe, expect, it } from 'vitest';
import type { Sqlite } from '../../src/db/open.js';
import { setIndexesAside } from '../../src/db/queries/bulk-index.js';
import { listMeetings } from '../../src/db/queries/meetings.js';
import { meetingTagsDrift, testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant, makeSummary } from '../support/factories.js';

const db = testDbs();

const triggers = (s: Sqlite) => s.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name").all();
const tempTriggers = (s: Sqlite) => s.prepare("SELECT name FROM sqlite_temp_schema WHERE type = 'trigger'").pluck().all();

const total = (s: Sqlite, filter: Parameters<typeof listMeetings>[1]) => listMeetings(s, filter, { offset: 0, limit: 5 }).pagination.total;

describe('writing with the indexes set aside', () => {
  it('leaves meeting_tags, the passages and the triggers as the live triggers would', () => {
    const s = db();
    // Meetings written before, by the live triggers: their rows must survive the rebuild.
    for (let i = 0; i < 5; i++) makeParticipant(s, makeMeeting(s, { folderPath: 'Ops', startedAt: `2026-01-0${i + 1}T09:00:00.000Z` }), { name: 'Ann Old' });
    const before = triggers(s);
    const tagRows = s.prepare('SELECT count(*) FROM meeting_tags').pluck().get() as number;
    expect(tagRows).toBeGreaterThan(0);

    s.transaction(() => {
      const aside = setIndexesAside(s);
      for (let i = 0; i < 40; i++) {
        const m = makeMeeting(s, { folderPath: i % 2 ? 'Sales/East' : 'Ops', startedAt: `2026-02-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00.000Z` });
        makeParticipant(s, m, { name: `Bea Bulk ${i}`, email: `bea${i}@bulk.test`, position: 0 });
        makeSummary(s, m, { content: `budget ${i}` });
        // A participant after the meeting's summary passage is written: the tags change, and the passage must follow.
        if (i % 4 === 0) makeParticipant(s, m, { name: 'Cy Later', position: 1 });
        // A move: the tags change through the folder.
        if (i % 10 === 9) s.prepare("UPDATE meetings SET folder_id = (SELECT id FROM folders WHERE path = 'Ops') WHERE id = ?").run(m);
      }
      // Meanwhile meeting_tags is not kept: the rows come at the end.
      aside.restore();
    })();

    expect(meetingTagsDrift(s)).toBe(0);
    expect(s.prepare('SELECT count(*) FROM search_passages p JOIN meetings m ON m.id = p.meeting_id WHERE p.tags IS NOT m.search_tags').pluck().get()).toBe(0);
    expect(triggers(s)).toEqual(before);
    expect(tempTriggers(s)).toEqual([]);
    // The filters answer from meeting_tags and meeting_terms.
    expect(total(s, { participant: 'Cy Later' })).toBe(10);
    expect(total(s, { participant: 'Ann Old' })).toBe(5);
    expect(total(s, { folderPath: 'Sales' })).toBe(16);
    expect(total(s, { folderPath: 'Ops' })).toBe(5 + 24);
    expect(total(s, { participant: 'bulk.test', folderPath: 'Sales/East' })).toBe(16);

    // The live triggers are back: a participant added now is a tag at once.
    const m = s.prepare("SELECT id FROM meetings WHERE folder_id = (SELECT id FROM folders WHERE path = 'Sales/East') LIMIT 1").pluck().get() as string;
    makeParticipant(s, m, { name: 'Di After', position: 5 });
    expect(meetingTagsDrift(s)).toBe(0);
    expect(total(s, { participant: 'Di After', folderPath: 'Sales' })).toBe(1);
  });
});
