// search_transcripts (Syntheo's own read tool) and the extra list_meetings filters, over stdio.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { loadDemoInto } from '../support/demo.js';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { call, callError, checkClamps, connectV2 } from '../support/mcp.js';

let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;

beforeAll(async () => {
  db = openTestDb();
  await loadDemoInto(db.path, Date.parse('2026-11-30T12:00:00Z'));
  ({ client, close } = await connectV2((await serve(db.path)).location, 'modern'));
});
afterAll(async () => {
  await close();
  db.cleanup();
});

describe('search_transcripts', () => {
  it('is listed as a read-only, idempotent tool', async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'search_transcripts')!;
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(tool.inputSchema.required).toEqual(['query']);
  });

  it('finds what was said; offset and start_ms point at the first matched word in get_meeting_transcript', async () => {
    const result = await call(client, 'search_transcripts', { query: 'references', folder_path: 'Acme/Hiring' });
    expect(result.pagination).toMatchObject({ offset: 0, limit: 10, total: 1, returned: 1 });
    const [hit] = result.hits;
    expect(hit).toMatchObject({ meeting_id: 'mtg_demo_interview_debrief', kind: 'transcript', speaker: 'Dan', snippet: expect.stringContaining('**references**') });
    const page = await call(client, 'get_meeting_transcript', { meeting_id: hit.meeting_id, offset: hit.offset, limit: 20, word_timings: true });
    expect(page.text).toMatch(/^\[\d\d:\d\d\] Dan: references/);
    expect(page.words[0]).toMatchObject({ index: hit.offset, text: 'references,', start_ms: hit.start_ms, speaker: 'Dan' });
    expect(hit.start_ms).toBeGreaterThan(0);
  });

  it('ranks the exact phrase first and combines filters', async () => {
    const phrase = await call(client, 'search_transcripts', { query: 'budget review moves to Thursday' });
    expect(phrase.hits[0].snippet).toContain('**budget** **review** **moves** **to** **Thursday**');
    const filtered = await call(client, 'search_transcripts', { query: 'budget review', series_id: 'ser_demo_weekly_sync', from: '2026-11-20', participant: 'chloe@' });
    expect(new Set(filtered.hits.map((h: { meeting_id: string }) => h.meeting_id))).toEqual(new Set(['mtg_demo_weekly_5']));
  });

  it('takes FTS syntax as plain text, and clamps limit to 1..50', async () => {
    for (const query of ['"budget', 'budget*', '-budget', 'budget NEAR review', 'AND OR NOT']) {
      const r = await call(client, 'search_transcripts', { query });
      expect(Array.isArray(r.hits), query).toBe(true);
    }
    await checkClamps(client, 'search_transcripts', { query: 'the' }, 'hits', 50);
  });

  it('answers -32602 for an unknown folder or series and for a missing query', async () => {
    expect(await callError(client, 'search_transcripts', { query: 'x', folder_path: 'Nowhere' })).toMatchObject({ code: -32602, message: expect.stringContaining('list_folders') });
    expect((await callError(client, 'search_transcripts', { query: 'x', series_id: 'ser_nope' })).code).toBe(-32602);
    expect((await callError(client, 'search_transcripts', {})).code).toBe(-32602);
  });
});

describe('list_meetings extra filters', () => {
  it('from/to (a bare date includes its day) and participant combine with the reference filters', async () => {
    const ids = async (args: Record<string, unknown>) => (await call(client, 'list_meetings', args)).meetings.map((m: { id: string }) => m.id);
    expect(await ids({ from: '2026-11-23', to: '2026-11-23' })).toEqual(['mtg_demo_weekly_5']);
    expect(await ids({ participant: 'eva', folder_path: 'Acme/Product' })).toEqual(['mtg_demo_research_readout']);
    expect(await ids({ participant: 'dan@', query: 'debrief' })).toEqual(['mtg_demo_interview_debrief']);
    expect((await callError(client, 'list_meetings', { from: 'last tuesday' })).code).toBe(-32603);
  });
});
