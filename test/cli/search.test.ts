import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, runJson } from './cli.js';
import { openTestDb } from '../support/db.js';
import { loadDemoInto } from '../support/demo.js';

describe('syntheo search', () => {
  let db: ReturnType<typeof openTestDb>;
  beforeAll(async () => {
    db = openTestDb();
    await loadDemoInto(db.path, Date.parse('2026-11-30T12:00:00Z'));
  });
  afterAll(() => db.cleanup());

  it('finds a phrase across meetings, exact phrase first, with an offset to read it in context', async () => {
    const { code, body } = await runJson(db.path, ['search', 'budget', 'review', '--limit', '3']);
    expect(code).toBe(0);
    expect(body.pagination).toMatchObject({ offset: 0, limit: 3, returned: 3, next_offset: 3 });
    const first = body.data[0];
    expect(first.snippet).toContain('**budget** **review**');
    const spoken = await runJson(db.path, ['search', 'budget review moves to Thursday', '--limit', '50']);
    const hit = spoken.body.data.find((h: { kind: string }) => h.kind === 'transcript');
    expect(hit).toMatchObject({ speaker: 'Alice', snippet: expect.stringContaining('**budget** **review** **moves** **to** **Thursday**') });
    const page = await runJson(db.path, ['meetings', 'transcript', hit.meeting_id, '--offset', String(hit.offset), '--limit', '60']);
    expect(page.body.data.text).toContain('the budget review moves to Thursday');
  });

  it('prints readable hits and combines filters', async () => {
    const r = await run(['--db', db.path, 'search', 'offer', '--folder', 'Acme/Hiring']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Interview debrief: senior backend engineer {2}mtg_demo_interview_debrief · transcript, word \d+, (Dan|Bob)/);
    expect(r.stdout).toContain('**offer**');
    const none = await run(['--db', db.path, 'search', 'offer', '--folder', 'Acme/Product']);
    expect(none.stdout.trim()).toBe('Nothing found for "offer".');
  });

  it('treats FTS syntax as text and needs a query', async () => {
    expect((await run(['--db', db.path, 'search', '"budget', 'NEAR', '*'])).code).toBe(0);
    expect((await run(['--db', db.path, 'search'])).code).toBe(64);
  });
});
