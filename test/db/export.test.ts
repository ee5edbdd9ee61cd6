import { describe, expect, it } from 'vitest';
import { exportMeetingOrThrow, loadMeetings } from '../../src/db/queries/export.js';
import { exportCheck } from '../../src/cli/commands/load.js';
import type { MeetingExport } from '../../src/db/queries/types.js';
import { getTranscriptPageOrThrow } from '../../src/db/queries/transcripts.js';
import { listMeetings } from '../../src/db/queries/meetings.js';
import { searchTranscripts } from '../../src/db/queries/search.js';
import { loadDemoInto } from '../support/demo.js';
import { testDbs } from '../support/db.js';
import { makeActionItem, makeMeeting, makeSummary, makeTranscript } from '../support/factories.js';

const db = testDbs();
const ids = (sqlite: ReturnType<typeof db>) => (sqlite.prepare('SELECT id FROM meetings ORDER BY id').all() as { id: string }[]).map((r) => r.id);

describe('export -> load -> export', () => {
  it('round-trips every demo meeting byte for byte into a fresh database', async () => {
    const source = db();
    await loadDemoInto(source.name, Date.parse('2026-11-30T12:00:00Z'));
    const exported = ids(source).map((id) => exportMeetingOrThrow(source, id));
    const target = db();
    await loadMeetings(target, JSON.parse(JSON.stringify(exported)));
    const again = ids(target).map((id) => exportMeetingOrThrow(target, id));
    expect(JSON.stringify(again)).toBe(JSON.stringify(exported));
    // The restored transcript pages exactly like the original.
    const meetingId = exported[0]!.id;
    expect(getTranscriptPageOrThrow(target, meetingId, { offset: 100, limit: 50 })).toEqual(getTranscriptPageOrThrow(source, meetingId, { offset: 100, limit: 50 }));
  });

  it('keeps words that had spaces in them as separate words, and null timings', async () => {
    const source = db();
    const id = makeMeeting(source, { title: 'Odd words' });
    makeTranscript(source, id, { texts: ['hello', 'new  york', 'city'], speakers: [null] });
    source.prepare('UPDATE transcript_words SET start_ms = NULL, end_ms = NULL WHERE idx = 0').run();
    const record = exportMeetingOrThrow(source, id);
    expect(record.transcripts[0]!.segments).toEqual([{ speaker: null, start_ms: null, end_ms: 1100, text: 'hello new york city', times: [[null, null], [400, 550], [550, 700], [800, 1100]] }]);
    const target = db();
    await loadMeetings(target, record);
    expect(exportMeetingOrThrow(target, id)).toEqual(record);
  });

  it('loading twice changes nothing and an existing meeting is replaced, not duplicated', async () => {
    const source = db();
    await loadDemoInto(source.name, Date.parse('2026-11-30T12:00:00Z'));
    const all = ids(source).map((id) => exportMeetingOrThrow(source, id));
    const target = db();
    await loadMeetings(target, { meetings: all });
    const counts = () => target.prepare('SELECT (SELECT count(*) FROM meetings) m, (SELECT count(*) FROM transcript_words) w, (SELECT count(*) FROM folders) f, (SELECT count(*) FROM participants) p').get();
    const first = counts();
    await loadMeetings(target, all);
    expect(counts()).toEqual(first);
  });

  it('rejects a record that is not an export, naming the field, and restores the others', async () => {
    const source = db();
    const good = exportMeetingOrThrow(source, makeMeeting(source, { title: 'Good' }));
    const target = db();
    const result = await loadMeetings(target, [{ format: 'syntheo.meeting/v1', id: 'mtg_x', title: 3 }, { hello: 'world' }, good], { check: await exportCheck() });
    expect(result.failed).toEqual([
      { record: 1, id: 'mtg_x', error: expect.stringMatching(/^Meeting mtg_x \(record 1\): title: Invalid type: Expected string but received 3\.$/) },
      { record: 2, id: null, error: expect.stringMatching(/^Record 2 is not a Syntheo meeting export \(syntheo\.meeting\/v1\): format: /) },
    ]);
    expect(result.meetings.map((m) => m.id)).toEqual([good.id]);
    expect(ids(target)).toEqual([good.id]);
  });

  it('rejects a segment whose words and times disagree, and writes nothing of that meeting', async () => {
    const source = db();
    const id = makeMeeting(source);
    makeTranscript(source, id, { words: 5 });
    const record = exportMeetingOrThrow(source, id);
    record.transcripts[0]!.segments[0]!.times.pop();
    const target = db();
    const result = await loadMeetings(target, record, { check: await exportCheck() });
    expect(result.failed).toEqual([{ record: 1, id, error: `Meeting ${id} (record 1): transcript ${record.transcripts[0]!.id}, segment 1: 5 words but 4 times. Words are separated by single spaces, one [start_ms, end_ms] each.` }]);
    expect(ids(target)).toEqual([]);
    expect(target.prepare('SELECT count(*) FROM transcript_words').pluck().get()).toBe(0);
  });
});

/** An export of a meeting with a summary, an action item and a short transcript. */
function fullRecord(sqlite: ReturnType<typeof db>, title = 'Full'): MeetingExport {
  const id = makeMeeting(sqlite, { title, note: 'A note\n' });
  makeSummary(sqlite, id);
  makeActionItem(sqlite, id);
  makeTranscript(sqlite, id, { words: 12 });
  return exportMeetingOrThrow(sqlite, id);
}

describe('load: values a later read could not serve are refused, naming the meeting and the field', () => {
  it('a fractional time (the tools answer integers)', async () => {
    const record = fullRecord(db());
    record.transcripts[0]!.segments[0]!.times[2]![0] = 1.5;
    const target = db();
    const result = await loadMeetings(target, JSON.parse(JSON.stringify(record)), { check: await exportCheck() });
    expect(result.failed).toEqual([{ record: 1, id: record.id, error: `Meeting ${record.id} (record 1): transcripts[0].segments[0].times[2][0]: an integer is expected.` }]);
    expect(ids(target)).toEqual([]);
  });

  it('a date that is not an ISO 8601 UTC date-time, and a segment start of 1e300', async () => {
    const a = fullRecord(db(), 'A');
    a.summaries[0]!.updated_at = 'yesterday';
    const b = fullRecord(db(), 'B');
    b.transcripts[0]!.segments[0]!.start_ms = 1e300;
    const result = await loadMeetings(db(), [a, b], { check: await exportCheck() });
    expect(result.failed.map((f) => f.error)).toEqual([
      `Meeting ${a.id} (record 1): summaries[0].updated_at: an ISO 8601 UTC date-time such as 2026-01-31T09:30:00.000Z is expected.`,
      `Meeting ${b.id} (record 2): transcripts[0].segments[0].start_ms: an integer is expected.`,
    ]);
  });
});

describe('load: IDs that clash are named with their record, and the other meetings are restored', () => {
  it("another meeting's summary, action item or transcript ID", async () => {
    const target = db();
    const existing = fullRecord(target, 'Already here');
    const source = db();
    const clashes = [fullRecord(source, 'S'), fullRecord(source, 'A'), fullRecord(source, 'T')];
    clashes[0]!.summaries[0]!.id = existing.summaries[0]!.id;
    clashes[1]!.action_items[0]!.id = existing.action_items[0]!.id;
    clashes[2]!.transcripts[0]!.id = existing.transcripts[0]!.id;
    const fine = fullRecord(source, 'Fine');
    const result = await loadMeetings(target, [...clashes, fine], { check: await exportCheck() });
    expect(result.failed.map((f) => f.error)).toEqual([
      `Meeting ${clashes[0]!.id} (record 1): summaries[0]: summary ${existing.summaries[0]!.id} already belongs to meeting ${existing.id} in this database. Give it another ID in the file, or load into another database.`,
      `Meeting ${clashes[1]!.id} (record 2): action_items[0]: action item ${existing.action_items[0]!.id} already belongs to meeting ${existing.id} in this database. Give it another ID in the file, or load into another database.`,
      `Meeting ${clashes[2]!.id} (record 3): transcripts[0]: transcript ${existing.transcripts[0]!.id} already belongs to meeting ${existing.id} in this database. Give it another ID in the file, or load into another database.`,
    ]);
    expect(result.meetings.map((m) => m.id)).toEqual([fine.id]);
    expect(ids(target)).toEqual([existing.id, fine.id].sort());
    // The meeting that was there is untouched.
    expect(exportMeetingOrThrow(target, existing.id)).toEqual(existing);
  });

  it('two transcripts in one record, an ID used twice in a record, a meeting twice in a file', async () => {
    const source = db();
    const two = fullRecord(source, 'Two transcripts');
    two.transcripts.push({ ...two.transcripts[0]!, id: 'trn_second' });
    const twice = fullRecord(source, 'Same summary twice');
    twice.summaries.push({ ...twice.summaries[0]! });
    const again = fullRecord(source, 'Again');
    const result = await loadMeetings(db(), [two, twice, again, again], { check: await exportCheck() });
    expect(result.failed.map((f) => f.error)).toEqual([
      `Meeting ${two.id} (record 1): transcripts: 2 transcripts (${two.transcripts[0]!.id}, trn_second), but a meeting has at most one.`,
      `Meeting ${twice.id} (record 2): summaries[1]: ID ${twice.summaries[0]!.id} is also used by summaries[0] in this record; each ID must be unique.`,
      `Meeting ${again.id} (record 4) is already record 3 of this file; only the first was restored.`,
    ]);
    expect(result.meetings.map((m) => m.id)).toEqual([again.id]);
  });

  it('a meeting identical to the database is skipped, a changed one replaced', async () => {
    const source = db();
    const a = fullRecord(source, 'A');
    const b = fullRecord(source, 'B');
    const target = db();
    await loadMeetings(target, [a, b]);
    const result = await loadMeetings(target, [a, { ...b, title: 'B renamed' }], { check: await exportCheck() });
    expect(result.skipped).toEqual([{ id: a.id, title: 'A', reason: 'identical to the database' }]);
    expect(result.meetings).toEqual([{ id: b.id, title: 'B renamed', words: 12 }]);
    expect(exportMeetingOrThrow(target, b.id).title).toBe('B renamed');
  });
});

describe('load: the shapes Syntheo writes', () => {
  it('the --json envelope of meetings export, and an export_meeting tool result', async () => {
    const source = db();
    const a = fullRecord(source, 'A');
    const b = fullRecord(source, 'B');
    const check = await exportCheck();
    const one = await loadMeetings(db(), { schema_version: 1, command: 'meetings export', data: a }, { check });
    expect(one.meetings.map((m) => m.id)).toEqual([a.id]);
    const many = await loadMeetings(db(), { schema_version: 1, command: 'meetings export', data: [a, b] }, { check });
    expect(many.meetings.map((m) => m.id)).toEqual([a.id, b.id]);
    const tool = await loadMeetings(db(), { content: [{ type: 'text', text: '…' }], structuredContent: b }, { check });
    expect(tool.meetings.map((m) => m.id)).toEqual([b.id]);
  });

  it('refuses what is not an export, saying what it is', async () => {
    const check = await exportCheck();
    await expect(loadMeetings(db(), { schema_version: 1, command: 'meetings export', data: { path: '/tmp/x.json', format: 'json', bytes: 10, meetings: [] } }, { check })).rejects.toThrow(
      'The file holds the summary that `syntheo --json meetings export --output` printed, not the meetings: load the file it wrote, /tmp/x.json.',
    );
    await expect(loadMeetings(db(), { schema_version: 1, error: { code: 'not_found', message: 'x', exit_code: 2 } }, { check })).rejects.toThrow(/an error report printed by syntheo/);
    await expect(loadMeetings(db(), { schema_version: 1, command: 'meetings get', data: { id: 'mtg_x' } }, { check })).rejects.toThrow(
      'The file holds the output of `syntheo meetings get`, not a meeting export. Write one with `syntheo meetings export ID...`.',
    );
    await expect(loadMeetings(db(), 42, { check })).rejects.toThrow(/holds a JSON number, not a Syntheo meeting export/);
  });
});

describe('load over an existing meeting: what its triggers keep', () => {
  // The meeting was written by an upsert, whose ON CONFLICT clause overrode the conflict clauses of the statements its
  // triggers ran: their INSERT OR IGNORE failed on a passage already marked for the search bitmaps, and their INSERT OR
  // REPLACE into meeting_terms (a contentless FTS5 table) kept the meeting's old tags beside its new ones.
  it('moves it to another folder, with its passages marked for the bitmaps', async () => {
    const s = db();
    const id = makeMeeting(s, { title: 'Moved', folderPath: 'Old' });
    makeTranscript(s, id, { texts: ['the', 'budget', 'review'] });
    makeMeeting(s, { title: 'Stays', folderPath: 'Old' });
    // Bitmaps reserved over the first block: every write to these passages marks them.
    s.prepare('UPDATE search_bits_state SET reserved = 1 WHERE id = 1').run();
    s.prepare("UPDATE meetings SET title = 'Moved once' WHERE id = ?").run(id);
    s.prepare("UPDATE search_passages SET tags = tags || ' x' WHERE meeting_id = ?").run(id);
    s.prepare("UPDATE search_passages SET tags = (SELECT search_tags FROM meetings WHERE id = ?) WHERE meeting_id = ?").run(id, id);
    expect(s.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get()).toBeGreaterThan(0);
    const record = exportMeetingOrThrow(s, id);
    const out = await loadMeetings(s, { ...record, folder_path: 'New' });
    expect(out.failed).toEqual([]);
    const titles = (folderPath: string) => listMeetings(s, { folderPath }, { limit: 10, offset: 0 });
    expect(titles('Old').meetings.map((m) => m.title)).toEqual(['Stays']);
    expect(titles('Old').pagination.total).toBe(1);
    expect(titles('New').meetings.map((m) => m.title)).toEqual(['Moved once']);
    expect(searchTranscripts(s, { query: 'budget', folderPath: 'Old' }, { limit: 10, offset: 0 }).pagination.total).toBe(0);
    expect(searchTranscripts(s, { query: 'budget', folderPath: 'New' }, { limit: 10, offset: 0 }).pagination.total).toBe(1);
  });
});
