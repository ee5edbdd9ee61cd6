// Resources: the three templates (the transcript one with any mix of its query variables), the paged
// list of recent meetings, and the errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { makeActionItem, makeMeeting, makeParticipant, makeSeries, makeSummary, makeTranscript } from '../support/factories.js';
import { connectV1, connectV2, errorOf } from '../support/mcp.js';

let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;
let location: string;
let meeting: string;
let series: string;
const MEETINGS = 45;

beforeAll(async () => {
  db = openTestDb();
  const s = db.sqlite;
  series = makeSeries(s, { title: 'Board meeting', cadence: 'monthly' });
  for (let i = 0; i < MEETINGS - 1; i++) {
    makeMeeting(s, { title: `Board ${String(i).padStart(2, '0')}`, seriesId: series, startedAt: new Date(Date.parse('2025-01-01T10:00:00.000Z') + i * 86_400_000).toISOString() });
  }
  meeting = makeMeeting(s, { title: 'Roadmap review', folderPath: 'Projets/Lancement', startedAt: '2026-05-04T14:00:00.000Z', note: '## Context\n\nWe compared three options.\n' });
  makeSummary(s, meeting, { title: 'Summary', content: '- Option B wins\n' });
  makeParticipant(s, meeting, { name: 'Ada Lovelace', email: 'ada@example.org' });
  makeActionItem(s, meeting, { text: 'Write the RFC', assignee: 'Ada Lovelace', done: true });
  makeTranscript(s, meeting, { words: 600, speakers: ['Ada', 'Linus'], turn: 5 });
  location = (await serve(db.path)).location;
  ({ client, close } = await connectV2(location, 'modern'));
});

afterAll(async () => {
  await close?.();
  db?.cleanup();
});

const text = async (uri: string) => {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  return contents[0] as { uri: string; mimeType: string; text: string };
};

/** The words of a transcript page's text, turn times and speaker prefixes removed. */
const wordsOf = (page: string) => page.replace(/^\[\d\d:\d\d\] (Ada|Linus): /gm, '').split(/[ \n]/);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `w${from + i}`);

describe('syntheo://meetings/{meeting_id}', () => {
  it('is the meeting in Markdown, without the transcript text', async () => {
    const r = await text(`syntheo://meetings/${meeting}`);
    expect(r.mimeType).toBe('text/markdown');
    expect(r.uri).toBe(`syntheo://meetings/${meeting}`);
    expect(r.text).toContain('# Roadmap review');
    expect(r.text).toContain('- Folder: Projets/Lancement');
    expect(r.text).toContain('- Transcript: 600 words');
    expect(r.text).toContain('- Option B wins');
    expect(r.text).toContain('- Ada Lovelace <ada@example.org>');
    expect(r.text).toContain('- [x] Write the RFC — Ada Lovelace');
    expect(r.text).toContain('We compared three options.');
    expect(r.text).not.toContain('w599');
  });

  it('percent-decodes the id and answers -32602 for an unknown meeting', async () => {
    expect((await text(`syntheo://meetings/${meeting.replace('_', '%5F')}`)).text).toContain('# Roadmap review');
    expect(await errorOf(client.readResource({ uri: 'syntheo://meetings/mtg_unknown' }))).toMatchObject({ code: -32602, message: expect.stringContaining('Use list_meetings') });
  });
});

describe('syntheo://meetings/{meeting_id}/transcript{?offset,limit}', () => {
  const base = () => `syntheo://meetings/${meeting}/transcript`;

  it('defaults to the first 200 words as plain text, one line per speaker turn with its start time', async () => {
    const r = await text(base());
    expect(r.mimeType).toBe('text/plain');
    expect(r.text.split('\n').slice(0, 2)).toEqual(['[00:00] Ada: w0 w1 w2 w3 w4', '[00:02] Linus: w5 w6 w7 w8 w9']);
    expect(wordsOf(r.text)).toEqual(range(0, 200));
  });

  it('takes offset only, limit only, both in either order', async () => {
    expect(wordsOf((await text(`${base()}?offset=590`)).text)).toEqual(range(590, 600));
    expect(wordsOf((await text(`${base()}?limit=3`)).text)).toEqual(range(0, 3));
    expect(wordsOf((await text(`${base()}?offset=7&limit=4`)).text)).toEqual(range(7, 11));
    expect(wordsOf((await text(`${base()}?limit=4&offset=7`)).text)).toEqual(range(7, 11));
    expect((await text(`${base()}?limit=4&offset=7`)).text).toBe('[00:02] Linus: w7 w8 w9\n[00:04] Ada: w10');
    // Other parameters are ignored; values are percent-decoded.
    expect(wordsOf((await text(`${base()}?format=txt&offset=%31%30&limit=2`)).text)).toEqual(range(10, 12));
  });

  it('clamps like the tool (limit 500 at most, offset below 0 is 0)', async () => {
    expect(wordsOf((await text(`${base()}?limit=100000`)).text)).toEqual(range(0, 500));
    expect(wordsOf((await text(`${base()}?limit=0&offset=-5`)).text)).toEqual(range(0, 1));
    expect((await text(`${base()}?offset=1000000000`)).text).toBe('');
    expect(wordsOf((await text(`${base()}?offset=2.9&limit=1.5`)).text)).toEqual(['w2']);
  });

  it('takes the last value of a repeated query key', async () => {
    expect(wordsOf((await text(`${base()}?offset=1&limit=2&offset=5`)).text)).toEqual(range(5, 7));
    expect(wordsOf((await text(`${base()}?limit=lots&limit=3`)).text)).toEqual(range(0, 3));
  });

  it('word_timings=true gives one tab-separated line per word with its timings', async () => {
    expect((await text(`${base()}?offset=4&limit=2&word_timings=true`)).text).toBe('index\tstart_ms\tend_ms\tspeaker\ttext\n4\t1600\t1900\tAda\tw4\n5\t2000\t2300\tLinus\tw5');
    expect((await text(`${base()}?limit=2&word_timings=false`)).text).toBe('[00:00] Ada: w0 w1');
    expect(await errorOf(client.readResource({ uri: `${base()}?word_timings=maybe` }))).toMatchObject({ code: -32602, message: expect.stringContaining('word_timings must be true or false') });
  });

  it('answers -32602 for a non-numeric value or an unknown meeting', async () => {
    expect(await errorOf(client.readResource({ uri: `${base()}?limit=lots` }))).toMatchObject({ code: -32602, message: expect.stringContaining('limit must be a number') });
    expect((await errorOf(client.readResource({ uri: 'syntheo://meetings/mtg_unknown/transcript?limit=5' }))).code).toBe(-32602);
  });
});

describe('syntheo://series/{series_id}', () => {
  it('lists up to 100 meetings of the series, newest first', async () => {
    const r = await text(`syntheo://series/${series}`);
    expect(r.mimeType).toBe('text/markdown');
    expect(r.text).toContain('# Board meeting');
    expect(r.text).toContain('- Cadence: monthly');
    expect(r.text).toContain(`- Meetings: ${MEETINGS - 1}`);
    const titles = [...r.text.matchAll(/— (Board \d\d)/g)].map((m) => m[1]);
    expect(titles).toEqual(Array.from({ length: MEETINGS - 1 }, (_, i) => `Board ${String(MEETINGS - 2 - i).padStart(2, '0')}`));
  });

  it('answers -32602 for an unknown series', async () => {
    expect(await errorOf(client.readResource({ uri: 'syntheo://series/ser_unknown' }))).toMatchObject({ code: -32602, message: expect.stringContaining('Series "ser_unknown" does not exist') });
  });
});

describe('resources/list', () => {
  it('pages recent meetings 20 at a time with a numeric cursor, none after the last page (v1 client: one page per call)', async () => {
    const v1 = await connectV1(location);
    try {
      const pages: { uri: string; name: string; mimeType?: string }[][] = [];
      const cursors: (string | undefined)[] = [];
      let cursor: string | undefined;
      do {
        const page = await v1.client.listResources(cursor === undefined ? undefined : { cursor });
        pages.push(page.resources);
        cursor = page.nextCursor;
        cursors.push(cursor);
      } while (cursor !== undefined);
      expect(pages.map((p) => p.length)).toEqual([20, 20, 5]);
      expect(cursors).toEqual(['20', '40', undefined]);
      const all = pages.flat();
      expect(all[0]).toMatchObject({ uri: `syntheo://meetings/${meeting}`, name: 'Roadmap review', mimeType: 'text/markdown' });
      expect(all.slice(1, 3).map((r) => r.name)).toEqual(['Board 43', 'Board 42']);
      expect(new Set(all.map((r) => r.uri)).size).toBe(MEETINGS);
      expect((await v1.client.readResource({ uri: all[0]!.uri })).contents[0]).toMatchObject({ text: expect.stringContaining('# Roadmap review') });
    } finally {
      await v1.close();
    }
  });

  it('serves the v2 client, which walks every page itself, and single pages by cursor', async () => {
    const all = await client.listResources();
    expect(all.resources).toHaveLength(MEETINGS);
    expect(all.nextCursor).toBeUndefined();
    const second = await client.listResources({ cursor: '20' });
    expect(second.resources.map((r) => r.name)).toEqual(all.resources.slice(20, 40).map((r) => r.name));
    expect(second.nextCursor).toBe('40');
    expect((await client.listResources({ cursor: '40' })).nextCursor).toBeUndefined();
  });

  it('answers -32602 for a cursor it did not give', async () => {
    for (const cursor of ['abc', '-20', '1.5', '']) expect((await errorOf(client.listResources({ cursor }))).code, cursor).toBe(-32602);
  });
});
