// A damaged search index seen from an assistant: search_transcripts fails with a message that says
// how to repair it, the other tools keep working, and after `syntheo doctor --repair-search` the same
// server finds the words again without a restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { openTestDb } from '../support/db.js';
import { makeMeeting, makeTranscript } from '../support/factories.js';
import { call, callError, connectV2 } from '../support/mcp.js';
import { run } from '../cli/cli.js';

let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;
let meeting: string;

beforeAll(async () => {
  db = openTestDb();
  meeting = makeMeeting(db.sqlite, { title: 'Budget review' });
  makeTranscript(db.sqlite, meeting, { texts: ['the', 'budget', 'is', 'approved'] });
  ({ client, close } = await connectV2(db.path, 'legacy'));
});
afterAll(async () => {
  await close?.();
  db?.cleanup();
});

describe('a damaged search index', () => {
  it('is reported to the assistant with the repair command, and repaired under a running server', async () => {
    expect((await call(client, 'search_transcripts', { query: 'budget' })).hits.length).toBeGreaterThan(0);
    db.sqlite.unsafeMode(true);
    db.sqlite.prepare('UPDATE search_fts_data SET block = zeroblob(length(block)) WHERE id > 10').run();
    db.sqlite.unsafeMode(false);
    const error = await callError(client, 'search_transcripts', { query: 'budget' });
    expect(error).toEqual({
      code: -32603,
      message: expect.stringContaining('The search index of the database is damaged (the meetings are not). Rebuild it with `syntheo doctor --repair-search`, then try again.'),
    });
    expect((await call(client, 'get_meeting', { meeting_id: meeting })).title).toBe('Budget review');
    const repaired = await run(['--db', db.path, 'doctor', '--repair-search']);
    expect(repaired.stdout).toContain('Rebuilt the search index: 1 passage, 1 meeting title, 0 participants.');
    const found = await call(client, 'search_transcripts', { query: 'budget' });
    expect(found.hits.map((r: { meeting_id: string }) => r.meeting_id)).toEqual([meeting]);
  });
});
