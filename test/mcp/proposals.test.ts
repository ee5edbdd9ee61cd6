// Proposal tools: staged, never applied; diffs; listing; declining; every error code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { proposeMemoEdit } from '../../src/db/queries/proposals.js';
import { openTestDb } from '../support/db.js';
import { serve, type Served } from '../support/engine.js';
import { makeMeeting, makeSummary } from '../support/factories.js';
import { call, callError, connectV2 } from '../support/mcp.js';

let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;
let served: Served;
let one: string;
let oneSummary: string;
let two: string;
let twoSummaries: string[];
let none: string;
let bulk: string;
const BULK = 205;

beforeAll(async () => {
  db = openTestDb();
  const s = db.sqlite;
  one = makeMeeting(s, { title: 'One summary', note: '# Notes\n\nOld note\nline 2\n' });
  oneSummary = makeSummary(s, one, { content: '## Summary\n\n- Old point\n- Kept point\n' });
  two = makeMeeting(s, { title: 'Two summaries' });
  twoSummaries = [makeSummary(s, two, { title: 'Short', content: 'Short one\n', position: 0 }), makeSummary(s, two, { title: 'Long', content: 'Long one\n', position: 1 })];
  none = makeMeeting(s, { title: 'No summary yet' });
  bulk = makeMeeting(s, { title: 'Many proposals' });
  for (let i = 0; i < BULK; i++) proposeMemoEdit(s, { meetingId: bulk, content: `Note version ${i}\n`, proposedBy: 'seed' });
  served = await serve(db.path);
  ({ client, close } = await connectV2(served.location, 'legacy', { clientInfo: { name: 'proposals-test', version: '2.0.0' } }));
});

afterAll(async () => {
  await close?.();
  db?.cleanup();
});

describe('propose_summary_edit', () => {
  it('stages a replacement of the only summary, with a diff, without changing the meeting', async () => {
    const p = await call(client, 'propose_summary_edit', { meeting_id: one, content: '## Summary\n\n- New point\n- Kept point\n' });
    expect(p).toMatchObject({
      id: expect.stringMatching(/^prp_/),
      meeting_id: one,
      meeting_title: 'One summary',
      kind: 'summary',
      target_id: oneSummary,
      status: 'pending',
      stale: false,
      proposed_by: 'proposals-test/2.0.0',
      decided_at: null,
      content: '## Summary\n\n- New point\n- Kept point\n',
      base_content: '## Summary\n\n- Old point\n- Kept point\n',
    });
    expect(p.diff.split('\n')).toEqual(expect.arrayContaining(['-- Old point', '+- New point', ' - Kept point']));
    const meeting = await call(client, 'get_meeting', { meeting_id: one });
    expect(meeting.summaries[0].content).toBe('## Summary\n\n- Old point\n- Kept point\n');
    expect(meeting.pending_proposal_count).toBe(1);
  });

  it('needs target_id when the meeting has several summaries', async () => {
    const error = await callError(client, 'propose_summary_edit', { meeting_id: two, content: 'Better\n' });
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('has 2 summaries');
    expect(error.message).toContain(twoSummaries[0]);
    expect(error.message).toContain('Pass target_id');
    const p = await call(client, 'propose_summary_edit', { meeting_id: two, content: 'Longer and better\n', target_id: twoSummaries[1] });
    expect(p).toMatchObject({ target_id: twoSummaries[1], base_content: 'Long one\n' });
  });

  it('stages a new summary for a meeting that has none', async () => {
    const p = await call(client, 'propose_summary_edit', { meeting_id: none, content: 'First summary\n' });
    expect(p).toMatchObject({ kind: 'summary', target_id: null, base_content: null, content: 'First summary\n' });
    expect(p.diff).toContain('+First summary');
    expect(p.diff).not.toMatch(/^-[^-]/m);
  });

  it('answers -32602 for an unknown meeting or summary, -32603 for empty or unchanged content', async () => {
    expect(await callError(client, 'propose_summary_edit', { meeting_id: 'mtg_nope', content: 'x' })).toEqual({ code: -32602, message: expect.stringContaining('Use list_meetings') });
    expect(await callError(client, 'propose_summary_edit', { meeting_id: two, content: 'x', target_id: 'sum_nope' })).toEqual({
      code: -32602,
      message: expect.stringMatching(/Summary "sum_nope" does not exist .*Use get_meeting/),
    });
    expect(await callError(client, 'propose_summary_edit', { meeting_id: one, content: '  \n ' })).toEqual({ code: -32603, message: expect.stringContaining('content is empty') });
    expect(await callError(client, 'propose_summary_edit', { meeting_id: two, content: 'Short one\n', target_id: twoSummaries[0] })).toEqual({
      code: -32603,
      message: expect.stringContaining('identical'),
    });
    expect((await callError(client, 'propose_summary_edit', { meeting_id: one })).code).toBe(-32602);
  });
});

describe('propose_memo_edit', () => {
  it('stages a replacement of the note with a unified diff', async () => {
    const p = await call(client, 'propose_memo_edit', { meeting_id: one, content: '# Notes\n\nOld note\nline two\n' });
    expect(p).toMatchObject({ kind: 'memo', target_id: null, status: 'pending', base_content: '# Notes\n\nOld note\nline 2\n' });
    const lines = p.diff.split('\n');
    expect(lines[0]).toMatch(/^--- /);
    expect(lines[1]).toMatch(/^\+\+\+ /);
    expect(lines).toEqual(expect.arrayContaining(['-line 2', '+line two', ' Old note']));
    expect((await call(client, 'get_meeting', { meeting_id: one })).note).toBe('# Notes\n\nOld note\nline 2\n');
  });

  it('answers -32603 for empty content and -32602 for an unknown meeting', async () => {
    expect((await callError(client, 'propose_memo_edit', { meeting_id: one, content: '' })).code).toBe(-32603);
    expect((await callError(client, 'propose_memo_edit', { meeting_id: 'mtg_nope', content: 'x' })).code).toBe(-32602);
    expect((await callError(client, 'propose_memo_edit', { meeting_id: one, content: 42 })).code).toBe(-32602);
  });
});

describe('list_proposals, get_proposal, decline_proposal', () => {
  it('lists pending proposals by default, newest first, filtered by meeting', async () => {
    const out = await call(client, 'list_proposals', { meeting_id: one });
    expect(out.proposals.map((p: { kind: string; status: string }) => [p.kind, p.status])).toEqual([
      ['memo', 'pending'],
      ['summary', 'pending'],
    ]);
    expect(out.pagination).toEqual({ offset: 0, limit: 20, returned: 2, total: 2 });
    const all = await call(client, 'list_proposals');
    expect(all.pagination).toMatchObject({ limit: 20, returned: 20, next_offset: 20 });
    expect(all.proposals.every((p: { status: string }) => p.status === 'pending')).toBe(true);
    expect((await call(client, 'list_proposals', { meeting_id: none })).proposals[0]).toMatchObject({ meeting_title: 'No summary yet', kind: 'summary', status: 'pending' });
  });

  it('clamps and pages', async () => {
    const page = async (args: Record<string, unknown>) => {
      const out = await call(client, 'list_proposals', { meeting_id: bulk, ...args });
      return { ...out.pagination, items: out.proposals.length };
    };
    expect(await page({ limit: 0 })).toEqual({ offset: 0, limit: 1, returned: 1, total: BULK, next_offset: 1, items: 1 });
    expect(await page({ limit: -5 })).toMatchObject({ limit: 1, returned: 1 });
    expect(await page({ limit: 2.7 })).toMatchObject({ limit: 2, returned: 2, next_offset: 2 });
    expect(await page({ offset: -5, limit: 3 })).toMatchObject({ offset: 0, returned: 3, next_offset: 3 });
    expect(await page({ offset: 1e9 })).toEqual({ offset: 1e9, limit: 20, returned: 0, total: BULK, items: 0 });
    // 200 of these rows pass ~12,000 tokens (the list budget): the page ends early and next_offset says where the next starts.
    for (const limit of [201, 1e9]) {
      const big = await page({ limit });
      expect(big).toMatchObject({ offset: 0, limit: 200, total: BULK, returned: big.items, next_offset: big.items });
      expect(big.items).toBeGreaterThan(150);
      expect(big.items).toBeLessThanOrEqual(200);
    }
    const ids = new Set<string>();
    let offset: number | undefined = 0;
    const returned: number[] = [];
    while (offset !== undefined) {
      const out: { proposals: { id: string }[]; pagination: { returned: number; next_offset?: number } } = await call(client, 'list_proposals', { meeting_id: bulk, limit: 90, offset });
      for (const p of out.proposals) ids.add(p.id);
      returned.push(out.pagination.returned);
      offset = out.pagination.next_offset;
    }
    expect(returned).toEqual([90, 90, 25]);
    expect(ids.size).toBe(BULK);
  });

  it('declines a pending proposal once, without changing the meeting', async () => {
    const staged = await call(client, 'propose_memo_edit', { meeting_id: two, content: 'A note for two\n' });
    const declined = await call(client, 'decline_proposal', { proposal_id: staged.id });
    expect(declined).toMatchObject({ id: staged.id, status: 'declined', decided_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect((await call(client, 'get_meeting', { meeting_id: two })).note).toBe('');
    const again = await callError(client, 'decline_proposal', { proposal_id: staged.id });
    expect(again.code).toBe(-32603);
    expect(again.message).toMatch(new RegExp(`Proposal ${staged.id} was already declined at .*; only a pending proposal can be declined`));
    expect((await call(client, 'list_proposals', { meeting_id: two, status: 'declined' })).proposals.map((p: { id: string }) => p.id)).toEqual([staged.id]);
    expect((await call(client, 'list_proposals', { meeting_id: two })).proposals.map((p: { id: string }) => p.id)).not.toContain(staged.id);
    expect((await call(client, 'get_proposal', { proposal_id: staged.id })).status).toBe('declined');
  });

  it('refuses to decline an applied proposal, and reports stale ones', async () => {
    const staged = await call(client, 'propose_summary_edit', { meeting_id: two, content: 'Short, improved\n', target_id: twoSummaries[0] });
    await (await served.store()).proposals.apply(staged.id, { force: false });
    expect((await callError(client, 'decline_proposal', { proposal_id: staged.id })).message).toContain('already applied');
    expect((await call(client, 'list_proposals', { meeting_id: two, status: 'applied' })).proposals.map((p: { id: string }) => p.id)).toEqual([staged.id]);
    expect((await call(client, 'list_proposals', { meeting_id: two, status: 'all' })).pagination.total).toBe(3);

    const memo = await call(client, 'propose_memo_edit', { meeting_id: none, content: 'Planned note\n' });
    await served.sql('UPDATE meetings SET note = ? WHERE id = ?', 'Someone edited the note meanwhile\n', none);
    expect((await call(client, 'get_proposal', { proposal_id: memo.id })).stale).toBe(true);
  });

  it('answers -32602 for an unknown proposal and for an unknown meeting filter', async () => {
    expect(await callError(client, 'get_proposal', { proposal_id: 'prp_nope' })).toEqual({ code: -32602, message: 'Proposal "prp_nope" does not exist. Use list_proposals to find proposal IDs.' });
    expect((await callError(client, 'decline_proposal', { proposal_id: 'prp_nope' })).code).toBe(-32602);
    expect((await callError(client, 'list_proposals', { meeting_id: 'mtg_nope' })).code).toBe(-32602);
  });
});
