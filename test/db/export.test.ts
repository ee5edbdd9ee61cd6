import { describe, expect, it } from 'vitest';
import { exportMeetingOrThrow, loadMeetings } from '../../src/db/queries/export.js';
import { getTranscriptPageOrThrow } from '../../src/db/queries/transcripts.js';
import { loadDemo } from '../../src/demo/dataset.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeTranscript } from '../support/factories.js';

const db = testDbs();
const ids = (sqlite: ReturnType<typeof db>) => (sqlite.prepare('SELECT id FROM meetings ORDER BY id').all() as { id: string }[]).map((r) => r.id);

describe('export -> load -> export', () => {
  it('round-trips every demo meeting byte for byte into a fresh database', async () => {
    const source = db();
    await loadDemo(source, Date.parse('2026-11-30T12:00:00Z'));
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
    await loadDemo(source, Date.parse('2026-11-30T12:00:00Z'));
    const all = ids(source).map((id) => exportMeetingOrThrow(source, id));
    const target = db();
    await loadMeetings(target, { meetings: all });
    const counts = () => target.prepare('SELECT (SELECT count(*) FROM meetings) m, (SELECT count(*) FROM transcript_words) w, (SELECT count(*) FROM folders) f, (SELECT count(*) FROM participants) p').get();
    const first = counts();
    await loadMeetings(target, all);
    expect(counts()).toEqual(first);
  });

  it('rejects a record that is not an export, naming the field', async () => {
    await expect(loadMeetings(db(), [{ format: 'syntheo.meeting/v1', id: 'mtg_x', title: 3 }])).rejects.toThrow(/Record 1 is not a Syntheo meeting export \(syntheo\.meeting\/v1\): title: /);
    await expect(loadMeetings(db(), { hello: 'world' })).rejects.toThrow(/Record 1 is not a Syntheo meeting export/);
  });

  it('rejects a segment whose words and times disagree, and writes nothing', async () => {
    const source = db();
    const id = makeMeeting(source);
    makeTranscript(source, id, { words: 5 });
    const record = exportMeetingOrThrow(source, id);
    record.transcripts[0]!.segments[0]!.times.pop();
    const target = db();
    await expect(loadMeetings(target, record)).rejects.toThrow(/segment 1: 5 words but 4 times/);
    expect(ids(target)).toEqual([]);
  });
});
