// The read tools over meetings, folders, series and transcripts, through one `syntheo mcp` process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { ensureFolderPath } from '../../src/db/queries/folders.js';
import type { NewWord } from '../../src/db/queries/transcripts.js';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { makeActionItem, makeMeeting, makeParticipant, makeSeries, makeSummary, makeTranscript } from '../support/factories.js';
import { call, callError, checkClamps, connectV2 } from '../support/mcp.js';

let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;
const ids: Record<string, string> = {};
let weekly: string;
let daily: string;
let words: NewWord[];
const BULK = 205;

const day = (date: string) => `${date}T09:00:00.000Z`;

beforeAll(async () => {
  db = openTestDb();
  const s = db.sqlite;
  ensureFolderPath(s, 'Vide');
  ids.newest = makeMeeting(s, { title: 'Newest meeting', startedAt: day('2026-04-01') });
  ids.projets = makeMeeting(s, { title: 'Projets kickoff', folderPath: 'Projets', startedAt: day('2026-03-09') });
  ids.design = makeMeeting(s, { title: 'Design review', folderPath: 'Projets/Lancement/Design', startedAt: day('2026-03-10'), speakers: ['Alice', 'Bob'] });
  ids.launch = makeMeeting(s, { title: 'Launch go/no-go', folderPath: 'Projets/Lancement', startedAt: day('2026-03-11') });
  ids.bis = makeMeeting(s, { title: 'Lancement bis', folderPath: 'Projets/Lancement-bis', startedAt: day('2026-03-12') });
  ids.sibling = makeMeeting(s, { title: 'Other project review', folderPath: 'Projets2', startedAt: day('2026-03-13') });
  ids.pct = makeMeeting(s, { title: 'Budget 100% review', startedAt: day('2026-03-14') });
  ids.pct2 = makeMeeting(s, { title: 'Budget 1000 review', startedAt: day('2026-03-15') });
  ids.underscore = makeMeeting(s, { title: 'plan_a sync', startedAt: day('2026-03-16') });
  ids.underscore2 = makeMeeting(s, { title: 'planXa sync', startedAt: day('2026-03-17') });
  ids.interview = makeMeeting(s, { title: 'Long interview', startedAt: day('2026-03-18') });
  words = makeTranscript(s, ids.interview, { words: 1234, speakers: ['Alice', 'Bob', null], turn: 7 });

  makeSummary(s, ids.design, { title: 'Summary', content: '## Decisions\n\n- Ship the blue theme\n', position: 0 });
  makeSummary(s, ids.design, { title: 'Risks', content: '- Fonts licence\n', position: 1 });
  makeParticipant(s, ids.design, { name: 'Grace Hopper', email: 'grace@example.org', role: 'Design lead', position: 0 });
  makeParticipant(s, ids.design, { name: 'Alan Turing', position: 1 });
  makeActionItem(s, ids.design, { text: 'Send the mock-ups', assignee: 'Grace Hopper', dueDate: '2026-03-20', done: false });

  weekly = makeSeries(s, { title: 'Weekly sync', cadence: 'weekly' });
  // Inserted out of order: the tools sort.
  for (const date of ['2026-02-16', '2026-02-02', '2026-03-02', '2026-02-23', '2026-02-09']) ids[`weekly-${date}`] = makeMeeting(s, { title: `Weekly ${date}`, seriesId: weekly, startedAt: day(date) });

  daily = makeSeries(s, { title: 'Daily standup', cadence: 'daily' });
  for (let i = 0; i < BULK; i++) {
    const date = new Date(Date.parse('2025-01-01T08:00:00.000Z') + i * 86_400_000).toISOString();
    makeMeeting(s, { title: `Standup ${String(i).padStart(3, '0')}`, folderPath: 'Bulk', seriesId: daily, startedAt: date });
  }
  for (let i = 0; i < BULK; i++) ensureFolderPath(s, `Many/F${String(i).padStart(3, '0')}`);

  ({ client, close } = await connectV2((await serve(db.path)).location, 'modern'));
});

afterAll(async () => {
  await close?.();
  db?.cleanup();
});

const TOTAL_MEETINGS = 16 + BULK;
const titles = (list: { meetings: { title: string }[] }) => list.meetings.map((m) => m.title);

describe('list_meetings', () => {
  it('defaults to 20 newest first, with the next page offset', async () => {
    const out = await call(client, 'list_meetings');
    expect(out.pagination).toEqual({ offset: 0, limit: 20, returned: 20, total: TOTAL_MEETINGS, next_offset: 20 });
    expect(titles(out).slice(0, 4)).toEqual(['Newest meeting', 'Long interview', 'planXa sync', 'plan_a sync']);
    const dates = out.meetings.map((m: { started_at: string }) => m.started_at);
    expect(dates).toEqual([...dates].sort().reverse());
    // A lean row: what a model needs to choose the next call (get_meeting has the rest).
    expect(out.meetings[0]).toEqual({ id: ids.newest, title: 'Newest meeting', started_at: '2026-04-01T09:00:00.000Z', folder_path: null });
    expect(out.meetings[1]).toEqual({ id: ids.interview, title: 'Long interview', started_at: '2026-03-18T09:00:00.000Z', folder_path: null, words: 1234 });
  });

  it('clamps limit and offset instead of rejecting them', async () => {
    await checkClamps(client, 'list_meetings', { folder_path: 'Bulk' }, 'meetings', 200);
  });

  it('pages through every result, next_offset absent on the last page', async () => {
    const seen: string[] = [];
    const pages: unknown[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const out: { meetings: { title: string }[]; pagination: { next_offset?: number } } = await call(client, 'list_meetings', { folder_path: 'Bulk', limit: 100, offset });
      pages.push(out.pagination);
      seen.push(...titles(out));
      offset = out.pagination.next_offset;
    }
    expect(pages).toEqual([
      { offset: 0, limit: 100, returned: 100, total: BULK, next_offset: 100 },
      { offset: 100, limit: 100, returned: 100, total: BULK, next_offset: 200 },
      { offset: 200, limit: 100, returned: 5, total: BULK },
    ]);
    expect(seen).toEqual(Array.from({ length: BULK }, (_, i) => `Standup ${String(BULK - 1 - i).padStart(3, '0')}`));
  });

  it('filters by folder, subfolders included, and nothing beside it', async () => {
    expect(titles(await call(client, 'list_meetings', { folder_path: 'Projets' }))).toEqual(['Lancement bis', 'Launch go/no-go', 'Design review', 'Projets kickoff']);
    expect(titles(await call(client, 'list_meetings', { folder_path: 'Projets/Lancement' }))).toEqual(['Launch go/no-go', 'Design review']);
    expect(titles(await call(client, 'list_meetings', { folder_path: 'projets/lancement/design' }))).toEqual(['Design review']);
    const empty = await call(client, 'list_meetings', { folder_path: 'Vide' });
    expect(empty).toEqual({ meetings: [], pagination: { offset: 0, limit: 20, returned: 0, total: 0 } });
    const design = (await call(client, 'list_meetings', { folder_path: 'Projets' })).meetings.find((m: { id: string }) => m.id === ids.design);
    expect(design.folder_path).toBe('Projets/Lancement/Design');
  });

  it('takes % and _ in query literally, case-insensitively, and matches IDs', async () => {
    expect(titles(await call(client, 'list_meetings', { query: '100%' }))).toEqual(['Budget 100% review']);
    expect(titles(await call(client, 'list_meetings', { query: 'plan_a' }))).toEqual(['plan_a sync']);
    expect(titles(await call(client, 'list_meetings', { query: 'BUDGET' }))).toEqual(['Budget 1000 review', 'Budget 100% review']);
    expect(titles(await call(client, 'list_meetings', { query: ids.design!.slice(-8) }))).toEqual(['Design review']);
    expect(await call(client, 'list_meetings', { query: 'no such meeting' })).toEqual({ meetings: [], pagination: { offset: 0, limit: 20, returned: 0, total: 0 } });
  });

  it('matches 1-2 character fragments literally in titles and IDs, newest first, with exact totals at any page', async () => {
    expect(titles(await call(client, 'list_meetings', { query: '0%' }))).toEqual(['Budget 100% review']);
    expect((await call(client, 'list_meetings', { query: '%' })).pagination.total).toBe(1);
    // Every ID holds `_` (mtg_...): the whole list, page by page as without a query.
    const underscore = await call(client, 'list_meetings', { query: '_', limit: 5, offset: 3 });
    expect(underscore.pagination.total).toBe(TOTAL_MEETINGS);
    expect(titles(underscore)).toEqual(titles(await call(client, 'list_meetings', { limit: 5, offset: 3 })));
    const standups = await call(client, 'list_meetings', { folder_path: 'Bulk', query: ' 2', limit: 3, offset: 2 });
    expect(titles(standups)).toEqual(['Standup 202', 'Standup 201', 'Standup 200']);
    expect(standups.pagination.total).toBe(5);
    expect(titles(await call(client, 'list_meetings', { query: ' 2', from: '2025-07-20', to: '2025-07-21' }))).toEqual(['Standup 201', 'Standup 200']);
  });

  it('filters by series, dates and participant, combined with AND', async () => {
    expect(titles(await call(client, 'list_meetings', { series_id: weekly }))).toEqual(['Weekly 2026-03-02', 'Weekly 2026-02-23', 'Weekly 2026-02-16', 'Weekly 2026-02-09', 'Weekly 2026-02-02']);
    expect(titles(await call(client, 'list_meetings', { from: '2026-03-10', to: '2026-03-12' }))).toEqual(['Lancement bis', 'Launch go/no-go', 'Design review']);
    expect(titles(await call(client, 'list_meetings', { participant: 'GRACE' }))).toEqual(['Design review']);
    expect(titles(await call(client, 'list_meetings', { folder_path: 'Projets', query: 'review' }))).toEqual(['Design review']);
  });

  it('answers -32602 for an unknown folder or series, -32603 for an unreadable date', async () => {
    expect(await callError(client, 'list_meetings', { folder_path: 'Nowhere/Else' })).toEqual({ code: -32602, message: expect.stringMatching(/Folder "Nowhere\/Else" does not exist\. Use list_folders/) });
    expect(await callError(client, 'list_meetings', { series_id: 'ser_nope' })).toEqual({ code: -32602, message: expect.stringMatching(/Series "ser_nope" does not exist/) });
    expect(await callError(client, 'list_meetings', { from: 'last tuesday' })).toEqual({ code: -32603, message: expect.stringContaining('ISO 8601') });
  });
});

describe('list_folders', () => {
  it('defaults to 100 folders sorted by path, with empty and parent folders', async () => {
    const out = await call(client, 'list_folders');
    expect(out.pagination).toEqual({ offset: 0, limit: 100, returned: 100, total: 8 + BULK, next_offset: 100 });
    const paths = out.folders.map((f: { path: string }) => f.path);
    expect(paths.slice(0, 3)).toEqual(['Bulk', 'Many', 'Many/F000']);
    const top = await call(client, 'list_folders', { query: 'projets' });
    expect(top.folders.map((f: { path: string; parent_path: string | null; meeting_count: number }) => [f.path, f.parent_path, f.meeting_count])).toEqual([
      ['Projets', null, 1],
      ['Projets/Lancement', 'Projets', 1],
      ['Projets/Lancement/Design', 'Projets/Lancement', 1],
      ['Projets/Lancement-bis', 'Projets', 1],
      ['Projets2', null, 1],
    ]);
    expect(top.folders[2]).toMatchObject({ name: 'Design', id: expect.stringMatching(/^fld_/) });
    expect((await call(client, 'list_folders', { query: 'vide' })).folders).toEqual([{ id: expect.any(String), path: 'Vide', name: 'Vide', parent_path: null, meeting_count: 0 }]);
  });

  it('clamps limit and offset', async () => {
    await checkClamps(client, 'list_folders', { query: 'Many/' }, 'folders', 200);
  });

  it('pages through every folder', async () => {
    const paths: string[] = [];
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const out: { folders: { path: string }[]; pagination: { next_offset?: number } } = await call(client, 'list_folders', { query: 'Many/', limit: 90, offset });
      paths.push(...out.folders.map((f: { path: string }) => f.path));
      offset = out.pagination.next_offset;
      pages++;
    }
    expect(pages).toBe(3);
    expect(paths).toEqual(Array.from({ length: BULK }, (_, i) => `Many/F${String(i).padStart(3, '0')}`));
  });
});

describe('get_meeting', () => {
  it('returns the details a user sees, without the transcript text', async () => {
    const m = await call(client, 'get_meeting', { meeting_id: ids.design });
    expect(m).toMatchObject({
      id: ids.design,
      title: 'Design review',
      folder_path: 'Projets/Lancement/Design',
      series: null,
      note: '',
      participants: [
        { name: 'Grace Hopper', email: 'grace@example.org', role: 'Design lead' },
        { name: 'Alan Turing', email: null, role: null },
      ],
      action_items: [{ text: 'Send the mock-ups', assignee: 'Grace Hopper', due_date: '2026-03-20', done: false }],
      transcript: null,
      speakers: ['Alice', 'Bob'],
      pending_proposal_count: 0,
      processing_status: null,
      recording_import: null,
    });
    expect(m.summaries.map((s: { title: string; content: string }) => [s.title, s.content])).toEqual([
      ['Summary', '## Decisions\n\n- Ship the blue theme\n'],
      ['Risks', '- Fonts licence\n'],
    ]);
    const interview = await call(client, 'get_meeting', { meeting_id: ids.interview });
    expect(interview.transcript).toMatchObject({ word_count: 1234, language: 'en' });
    expect(JSON.stringify(interview)).not.toContain('w1233');
    const weeklyMeeting = await call(client, 'get_meeting', { meeting_id: ids['weekly-2026-02-09'] });
    expect(weeklyMeeting.series).toEqual({ id: weekly, title: 'Weekly sync', cadence: 'weekly' });
  });

  it('answers -32602 naming the unknown id and the tool that lists valid ones', async () => {
    expect(await callError(client, 'get_meeting', { meeting_id: 'mtg_doesnotexist' })).toEqual({
      code: -32602,
      message: 'Meeting "mtg_doesnotexist" does not exist. Use list_meetings to find meeting IDs.',
    });
  });
});

describe('get_meeting_transcript', () => {
  const expectedWord = (i: number) => ({ index: i, text: words[i]!.text, start_ms: words[i]!.startMs, end_ms: words[i]!.endMs, speaker: words[i]!.speaker });
  const timed = { word_timings: true };

  it('defaults to the first 200 words: one line per turn with its start time, and a [offset, start_ms] index per line', async () => {
    const out = await call(client, 'get_meeting_transcript', { meeting_id: ids.interview });
    expect(out.pagination).toEqual({ offset: 0, limit: 200, returned: 200, total: 1234, next_offset: 200 });
    // Factory words are 400 ms apart and turns 7 words long: w7 starts at 2.8 s, w14 at 5.6 s.
    expect(out.text.split('\n').slice(0, 4)).toEqual([
      '[00:00] Alice: w0 w1 w2 w3 w4 w5 w6',
      '[00:02] Bob: w7 w8 w9 w10 w11 w12 w13',
      '[00:05] w14 w15 w16 w17 w18 w19 w20',
      '[00:08] Alice: w21 w22 w23 w24 w25 w26 w27',
    ]);
    expect(out.words.slice(0, 4)).toEqual([[0, 0], [7, 2800], [14, 5600], [21, 8400]]);
    expect(out.words).toHaveLength(out.text.split('\n').length);
  });

  it('gives one {index, text, start_ms, end_ms, speaker} per word with word_timings', async () => {
    const out = await call(client, 'get_meeting_transcript', { meeting_id: ids.interview, ...timed });
    expect(out.words).toHaveLength(200);
    expect(out.words[0]).toEqual({ index: 0, text: 'w0', start_ms: 0, end_ms: 300, speaker: 'Alice' });
    expect(out.words[14]).toEqual({ index: 14, text: 'w14', start_ms: 5600, end_ms: 5900, speaker: null });
    expect(out.text.split('\n')[0]).toBe('[00:00] Alice: w0 w1 w2 w3 w4 w5 w6');
  });

  it('starts a page mid-turn with its speaker and the time of its first word', async () => {
    const out = await call(client, 'get_meeting_transcript', { meeting_id: ids.interview, offset: 10, limit: 14 });
    expect(out.text).toBe('[00:04] Bob: w10 w11 w12 w13\n[00:05] w14 w15 w16 w17 w18 w19 w20\n[00:08] Alice: w21 w22 w23');
    expect(out.words).toEqual([[10, 4000], [14, 5600], [21, 8400]]);
    expect(out.meeting_id).toBe(ids.interview);
  });

  for (const limit of [undefined, 500, 333]) {
    it(`reassembles the whole transcript exactly from pages of ${limit ?? 'the default'}`, async () => {
      const collected: unknown[] = [];
      const offsets: number[] = [];
      let offset: number | undefined = 0;
      while (offset !== undefined) {
        offsets.push(offset);
        const args = { meeting_id: ids.interview, offset, ...(limit ? { limit } : {}) };
        const out: { text: string; words: { text: string }[]; pagination: { next_offset?: number } } = await call(client, 'get_meeting_transcript', { ...args, ...timed });
        const lean: { text: string; words: [number, number][] } = await call(client, 'get_meeting_transcript', args);
        const lines = lean.text.split('\n') as string[];
        expect(lean.text).toBe(out.text);
        // Each line of text starts at its index entry's word, at its time.
        expect(lean.words.map(([at, ms]: [number, number]) => `[${new Date(ms).toISOString().slice(14, 19)}] ${words[at]!.speaker ? `${words[at]!.speaker}: ` : ''}w${at}`)).toEqual(
          lines.map((l) => l.split(' ').slice(0, l.includes(': ') ? 3 : 2).join(' ')),
        );
        expect(out.text.replace(/^\[\d\d:\d\d\] ((Alice|Bob): )?/gm, '').split(/[ \n]/)).toEqual(out.words.map((w: { text: string }) => w.text));
        collected.push(...out.words);
        offset = out.pagination.next_offset;
      }
      const size = limit ?? 200;
      expect(offsets).toEqual(Array.from({ length: Math.ceil(1234 / size) }, (_, i) => i * size));
      expect(collected).toEqual(words.map((_, i) => expectedWord(i)));
    });
  }

  it('clamps limit to 500 and offset to 0', async () => {
    await checkClamps(client, 'get_meeting_transcript', { meeting_id: ids.interview, ...timed }, 'words', 500);
    const out = await call(client, 'get_meeting_transcript', { meeting_id: ids.interview, offset: 1230, limit: 500, ...timed });
    expect(out.words.map((w: { text: string }) => w.text)).toEqual(['w1230', 'w1231', 'w1232', 'w1233']);
    expect(out.pagination).toEqual({ offset: 1230, limit: 500, returned: 4, total: 1234 });
  });

  it('gives an empty page for a meeting without transcript, -32602 for an unknown meeting', async () => {
    expect(await call(client, 'get_meeting_transcript', { meeting_id: ids.newest })).toEqual({
      meeting_id: ids.newest,
      text: '',
      words: [],
      pagination: { offset: 0, limit: 200, returned: 0, total: 0 },
    });
    expect((await callError(client, 'get_meeting_transcript', { meeting_id: 'mtg_gone' })).code).toBe(-32602);
  });
});

describe('get_recurring_meeting_history', () => {
  it('lists the series newest first, the meeting itself included', async () => {
    const out = await call(client, 'get_recurring_meeting_history', { meeting_id: ids['weekly-2026-02-16'] });
    expect(out.series).toEqual({ id: weekly, title: 'Weekly sync', cadence: 'weekly' });
    expect(titles(out)).toEqual(['Weekly 2026-03-02', 'Weekly 2026-02-23', 'Weekly 2026-02-16', 'Weekly 2026-02-09', 'Weekly 2026-02-02']);
    expect(out.pagination).toEqual({ offset: 0, limit: 20, returned: 5, total: 5 });
  });

  it('is empty for a meeting with no series', async () => {
    expect(await call(client, 'get_recurring_meeting_history', { meeting_id: ids.design })).toEqual({
      meeting_id: ids.design,
      series: null,
      meetings: [],
      pagination: { offset: 0, limit: 20, returned: 0, total: 0 },
    });
  });

  it('pages and clamps', async () => {
    const standup = (await call(client, 'list_meetings', { query: 'Standup 000' })).meetings[0].id as string;
    await checkClamps(client, 'get_recurring_meeting_history', { meeting_id: standup }, 'meetings', 200);
    const first = await call(client, 'get_recurring_meeting_history', { meeting_id: standup });
    expect(first.pagination).toEqual({ offset: 0, limit: 20, returned: 20, total: BULK, next_offset: 20 });
    const last = await call(client, 'get_recurring_meeting_history', { meeting_id: standup, offset: 200 });
    expect(titles(last)).toEqual(['Standup 004', 'Standup 003', 'Standup 002', 'Standup 001', 'Standup 000']);
    expect(last.pagination.next_offset).toBeUndefined();
  });

  it('answers -32602 for an unknown meeting', async () => {
    expect((await callError(client, 'get_recurring_meeting_history', { meeting_id: 'mtg_unknown' })).message).toContain('Use list_meetings');
  });
});

describe('export_meeting', () => {
  it('returns the full record with the whole transcript', async () => {
    const out = await call(client, 'export_meeting', { meeting_id: ids.interview });
    expect(out).toMatchObject({ format: 'syntheo.meeting/v1', id: ids.interview, title: 'Long interview', folder_path: null, series: null });
    expect(out.transcripts).toHaveLength(1);
    const [transcript] = out.transcripts;
    expect(transcript.word_count).toBe(1234);
    const exported = transcript.segments.flatMap((seg: { speaker: string | null; text: string; times: [number, number][] }) =>
      seg.text.split(' ').map((text, i) => ({ text, speaker: seg.speaker, startMs: seg.times[i]![0], endMs: seg.times[i]![1] })),
    );
    expect(exported).toEqual(words.map((w) => ({ text: w.text, speaker: w.speaker, startMs: w.startMs, endMs: w.endMs })));
    const design = await call(client, 'export_meeting', { meeting_id: ids.design });
    expect(design.speakers).toEqual(['Alice', 'Bob']);
    expect(design.summaries).toHaveLength(2);
    expect(design.transcripts).toEqual([]);
  });

  it('answers -32602 for an unknown meeting', async () => {
    expect((await callError(client, 'export_meeting', { meeting_id: 'mtg_unknown' })).code).toBe(-32602);
  });
});
