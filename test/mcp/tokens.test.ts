// What an assistant pays, counted with a real tokenizer (o200k, gpt-tokenizer) on what the model
// reads: structuredContent as JSON (Claude Code, VS Code) and the text block (other clients). Not a
// benchmark (bench/tokens.ts prints the numbers): budgets a change must not break.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { ensureFolderPath } from '../../src/db/queries/folders.js';
import { proposeMemoEdit } from '../../src/db/queries/proposals.js';
import { stamp as timestamp } from '../../src/text/clock.js';
import { loadDemoInto } from '../support/demo.js';
import { ANSWER_LIMIT, LIST_LIMIT, PAGE_TOKENS_PER_WORD, TOOL_LIST_LIMIT, answerTokens, measure, probes, readWhole, tokens, toolListTokens } from '../../bench/tokens.js';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { makeMeeting, makeSeries, makeSummary, makeTranscript } from '../support/factories.js';
import { call, connectV1, connectV2 } from '../support/mcp.js';

let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;
let location: string;
let long: string;
let demoMeetings: string[];
const LONG_WORDS = 30_000;

beforeAll(async () => {
  db = openTestDb();
  const s = db.sqlite;
  await loadDemoInto(db.path, Date.parse('2026-11-30T12:00:00Z'));
  demoMeetings = (s.prepare('SELECT meeting_id AS id FROM transcripts ORDER BY meeting_id').all() as { id: string }[]).map((r) => r.id);
  // A 30,000-word meeting of real English: the demo's conversations, one after the other, again and again.
  const demo = s.prepare('SELECT w.text, w.speaker FROM transcript_words w JOIN transcripts t ON t.id = w.transcript_id ORDER BY t.meeting_id, w.idx').all() as { text: string; speaker: string | null }[];
  long = makeMeeting(s, { title: 'All-hands marathon', folderPath: 'Acme/Company', startedAt: '2026-11-29T08:00:00.000Z' });
  const texts = Array.from({ length: LONG_WORDS }, (_, i) => demo[i % demo.length]!.text);
  const words = makeTranscript(s, long, { texts, speakers: ['Alice', 'Bob', 'Chloé', 'Dan'], turn: 25 });
  expect(words).toHaveLength(LONG_WORDS);
  makeSummary(s, long, { content: '## Decisions\n\n- Ship the beta on Monday.\n' });
  // Lists at their largest clamp: more than 200 meetings (one series), folders and proposals, with long titles and paths.
  const series = makeSeries(s, { title: 'Weekly engineering and product planning sync', cadence: 'weekly' });
  for (let i = 0; i < 210; i++) {
    const id = makeMeeting(s, {
      title: `Weekly engineering and product planning sync #${i} — roadmap, hiring and budget`,
      folderPath: `Acme/Engineering/Platform team/Quarter ${i % 4}`,
      seriesId: series,
      startedAt: new Date(Date.parse('2024-01-01T09:00:00.000Z') + i * 7 * 86_400_000).toISOString(),
    });
    if (i < 205) proposeMemoEdit(s, { meetingId: id, content: `# Notes ${i}\n\nA proposed note.\n`, proposedBy: 'claude-code/2.1.0' });
  }
  for (let i = 0; i < 205; i++) ensureFolderPath(s, `Acme/Customers/Enterprise accounts/Region ${i}`);
  location = (await serve(db.path)).location;
  ({ client, close } = await connectV2(location, 'modern'));
}, 120_000);

afterAll(async () => {
  await close?.();
  db?.cleanup();
});

describe('what an assistant pays', () => {
  it(`tools/list as a model reads it (names, titles, descriptions, input schemas) is at most ${TOOL_LIST_LIMIT} tokens, and still says what the reference requires`, async () => {
    const { tools } = await client.listTools();
    expect(toolListTokens(tools)).toBeLessThanOrEqual(TOOL_LIST_LIMIT);
    const described = (name: string) => {
      const t = tools.find((x) => x.name === name)!;
      return `${t.description} ${JSON.stringify(t.inputSchema)}`;
    };
    // An empty list means none matched; where IDs come from; proposals are only staged; how paging ends.
    expect(described('list_meetings')).toMatch(/empty list means no meeting matches: don't invent one/);
    expect(described('search_transcripts')).toMatch(/empty list means nothing matched/);
    for (const name of ['get_meeting', 'get_meeting_transcript', 'export_meeting', 'propose_memo_edit', 'propose_summary_edit', 'get_recurring_meeting_history'])
      expect(described(name), name).toContain('mtg_... from list_meetings');
    expect(described('list_folders')).toContain('folder_path of list_meetings');
    expect(described('get_recording_import')).toContain('job_... from import_recording');
    expect(described('get_proposal')).toContain('prp_... from list_proposals');
    for (const name of ['propose_memo_edit', 'propose_summary_edit']) expect(described(name), name).toMatch(/nothing changes until the user applies it/);
    expect(described('get_meeting_transcript')).toMatch(/No pagination.next_offset: the page reaches the end/);
    expect(described('get_meeting_transcript')).toContain('word_timings');
    expect(described('export_meeting')).toMatch(/truncated says how to read the rest/);
  });

  it(`a default transcript page of a real conversation costs at most ${PAGE_TOKENS_PER_WORD} tokens a word as the model reads it`, async () => {
    for (const id of demoMeetings) {
      const result = await client.callTool({ name: 'get_meeting_transcript', arguments: { meeting_id: id } });
      const { structured, content } = answerTokens(result as never);
      const page = result.structuredContent as { text: string; pagination: { returned: number } };
      expect(page.pagination.returned, id).toBeGreaterThanOrEqual(150);
      expect(structured / page.pagination.returned, id).toBeLessThanOrEqual(PAGE_TOKENS_PER_WORD);
      expect(content / page.pagination.returned, id).toBeLessThanOrEqual(PAGE_TOKENS_PER_WORD);
      // The plain words cost ~1.25: times, turns and paging add less than ~0.75.
      expect(tokens(page.text)).toBeLessThan(structured);
    }
  });

  it(`no answer passes ${ANSWER_LIMIT} tokens at any clamp on a meeting of ${LONG_WORDS} words, and lists at 200 stay under ${LIST_LIMIT}`, async () => {
    const list = probes(db.sqlite);
    // Every read tool is measured, at its default and its maximum clamps.
    expect(new Set(list.map((p) => p.name))).toEqual(
      new Set([
        'list_meetings', 'list_folders', 'list_proposals', 'search_transcripts', 'get_meeting', 'resource meeting', 'get_meeting_transcript', 'export_meeting',
        'resource transcript', 'get_recurring_meeting_history', 'resource series', 'get_proposal',
      ]),
    );
    expect(list).toContainEqual(expect.objectContaining({ name: 'export_meeting', args: { meeting_id: long } }));
    const over: string[] = [];
    for (const m of await measure(client, list)) {
      const isList = /^list_|history/.test(m.probe.name) && /200/.test(m.probe.label);
      const limit = isList ? LIST_LIMIT : ANSWER_LIMIT;
      if (m.structured > limit || m.content > limit) over.push(`${m.probe.name} ${m.probe.label}: ${m.structured} / ${m.content} tokens (limit ${limit})`);
    }
    expect(over).toEqual([]);
  }, 120_000);

  it('reads 10,000 words end to end at limit 500 in at most 22,000 tokens', async () => {
    const whole = await readWhole(client, long, 500, 10_000);
    expect(whole).toMatchObject({ words: 10_000, pages: 20 });
    expect(whole.structured).toBeLessThanOrEqual(22_000);
    expect(whole.content).toBeLessThanOrEqual(22_000);
  }, 60_000);
});

describe('export_meeting of a meeting too big for one answer', () => {
  it('returns what fits, says so, and the transcript pages it names give exactly the rest', async () => {
    const out = await call(client, 'export_meeting', { meeting_id: long });
    const [t] = out.transcripts;
    const included = t.segments.reduce((n: number, seg: { times: unknown[] }) => n + seg.times.length, 0);
    expect(included).toBeGreaterThan(1000);
    expect(included).toBeLessThan(LONG_WORDS);
    expect(t.word_count).toBe(LONG_WORDS);
    expect(out.summaries).toHaveLength(1);
    expect(out.truncated).toEqual({
      reason: expect.stringContaining(`stops after ${included} of its ${LONG_WORDS} words`),
      transcript_words_included: included,
      next_offset: included,
      read_rest: `get_meeting_transcript with meeting_id "${long}", offset ${included} and limit 500, then each pagination.next_offset; or the resource syntheo://meetings/${long}/transcript?offset=${included}&limit=500`,
    });
    // The export's words, then the pages from next_offset: the whole transcript, each word once.
    const exported: string[] = t.segments.flatMap((seg: { text: string }) => seg.text.split(' '));
    const rest = await call(client, 'get_meeting_transcript', { meeting_id: long, offset: out.truncated.next_offset, limit: 3, word_timings: true });
    const all = (db.sqlite.prepare('SELECT text FROM transcript_words w JOIN transcripts t ON t.id = w.transcript_id WHERE t.meeting_id = ? ORDER BY idx').all(long) as { text: string }[]).map((r) => r.text);
    expect(exported).toEqual(all.slice(0, included));
    expect(rest.words.map((w: { text: string }) => w.text)).toEqual(all.slice(included, included + 3));
  });

  it('stays the whole record, without truncated, for a meeting that fits', async () => {
    const out = await call(client, 'export_meeting', { meeting_id: demoMeetings[0] });
    expect(out.truncated).toBeUndefined();
    expect(out.transcripts[0].segments.reduce((n: number, seg: { times: unknown[] }) => n + seg.times.length, 0)).toBe(out.transcripts[0].word_count);
  });
});

describe('the new shapes against every client', () => {
  for (const kind of ['v1', 'v2 legacy'] as const) {
    it(`${kind}: the answers validate against their output schemas`, async () => {
      const connected = kind === 'v1' ? await connectV1(location) : await connectV2(location, 'legacy');
      try {
        const c = connected.client;
        // Once they have listed the tools, the clients validate structuredContent against each outputSchema and throw on a mismatch.
        await c.listTools();
        expect((await call(c, 'get_meeting_transcript', { meeting_id: long, limit: 30 })).words[0]).toEqual([0, 0]);
        expect((await call(c, 'get_meeting_transcript', { meeting_id: long, limit: 2, word_timings: true })).words).toHaveLength(2);
        expect((await call(c, 'export_meeting', { meeting_id: long })).truncated.next_offset).toBeGreaterThan(0);
        expect((await call(c, 'list_meetings', { limit: 200 })).meetings.length).toBeGreaterThan(100);
        expect((await call(c, 'list_proposals', { limit: 200 })).proposals.length).toBeGreaterThan(100);
        expect((await call(c, 'get_recurring_meeting_history', { meeting_id: (await call(c, 'list_meetings', { query: 'sync #3 ' })).meetings[0].id })).meetings).toHaveLength(20);
        const hit = (await call(c, 'search_transcripts', { query: 'budget' })).hits.find((h: { kind: string }) => h.kind === 'transcript');
        expect(hit.start_ms).toEqual(expect.any(Number));
      } finally {
        await connected.close();
      }
    }, 60_000);
  }
});

describe('turn times', () => {
  it('read mm:ss, and hh:mm:ss from the first hour on', () => {
    expect([0, 59_999, 754_000, 3_599_999, 3_600_000, 4_331_000, 360_000_000].map(timestamp)).toEqual(['00:00', '00:59', '12:34', '59:59', '01:00:00', '01:12:11', '100:00:00']);
  });
});
