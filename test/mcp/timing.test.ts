// The timing flag through one `syntheo mcp` process: get_meeting always says it, get_meeting_transcript
// only when the times are not measured (structuredContent and the text block).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { makeMeeting, makeTranscript } from '../support/factories.js';
import { call, connectV2 } from '../support/mcp.js';

let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  db = openTestDb();
  const s = db.sqlite;
  for (const timing of ['measured', 'estimated', 'mixed'] as const) {
    ids[timing] = makeMeeting(s, { title: `Timing ${timing}` });
    makeTranscript(s, ids[timing]!, { words: 12 });
    s.prepare('UPDATE transcripts SET timing = ? WHERE meeting_id = ?').run(timing, ids[timing]);
  }
  ({ client, close } = await connectV2((await serve(db.path)).location, 'modern'));
}, 60_000);

afterAll(async () => {
  await close?.();
  db?.cleanup();
});

const textOf = async (name: string, args: Record<string, unknown>) => {
  const r = (await client.callTool({ name, arguments: args })) as { content: { type: string; text?: string }[] };
  return r.content.find((c) => c.type === 'text')!.text!;
};

describe('timing over MCP', () => {
  it.each([
    ['measured', '- Transcript: 12 words (read it', undefined, '; last page.'],
    ['estimated', '- Transcript: 12 words, times estimated (read it', 'estimated', '; last page. Times are estimated (spread over each cue).'],
    ['mixed', '- Transcript: 12 words, times partly estimated (read it', 'mixed', '; last page. Times are partly estimated.'],
  ] as const)('%s: get_meeting says transcript.timing, the transcript page says it only when not measured', async (timing, line, onPage, pageEnd) => {
    const meeting = await call(client, 'get_meeting', { meeting_id: ids[timing] });
    expect(meeting.transcript).toMatchObject({ word_count: 12, timing });
    expect(await textOf('get_meeting', { meeting_id: ids[timing] })).toContain(line);
    const page = await call(client, 'get_meeting_transcript', { meeting_id: ids[timing] });
    expect(page.timing).toBe(onPage);
    expect((await textOf('get_meeting_transcript', { meeting_id: ids[timing] })).endsWith(`Words 1-12 of 12${pageEnd}`)).toBe(true);
  });
});
