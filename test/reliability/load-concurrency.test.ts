// `syntheo load` of a large export while an assistant keeps proposing edits through `syntheo mcp`:
// the load writes in short transactions, so every proposal is accepted, and some while the load is
// still under way (no proposal waits for the whole file).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { exportMeetingOrThrow } from '../../src/db/queries/export.js';
import { openTestDb } from '../support/db.js';
import { makeMeeting, makeTranscript } from '../support/factories.js';
import { call, connectV2 } from '../support/mcp.js';
import { start } from '../cli/cli.js';

const MEETINGS = 60;
const WORDS = 3000;

let source: ReturnType<typeof openTestDb>;
let target: ReturnType<typeof openTestDb>;
let file: string;
let client: Client;
let close: () => Promise<void>;
let meeting: string;

beforeAll(async () => {
  source = openTestDb();
  const records = [];
  for (let i = 0; i < MEETINGS; i++) {
    const id = makeMeeting(source.sqlite, { title: `Loaded ${i}`, folderPath: `Archive/${i % 7}`, note: `Note ${i}\n` });
    makeTranscript(source.sqlite, id, { words: WORDS });
    records.push(exportMeetingOrThrow(source.sqlite, id));
  }
  file = join(source.dir, 'big.json');
  writeFileSync(file, JSON.stringify(records));
  target = openTestDb();
  meeting = makeMeeting(target.sqlite, { title: 'Being edited' });
  ({ client, close } = await connectV2(target.path, 'legacy'));
});

afterAll(async () => {
  await close?.();
  source?.cleanup();
  target?.cleanup();
});

describe('load while syntheo mcp writes', () => {
  it('every proposal is accepted, some between two meetings of the load', async () => {
    const count = target.sqlite.prepare('SELECT count(*) FROM meetings').pluck();
    const load = start(['--db', target.path, 'load', file]);
    let running = true;
    void load.result.then(() => (running = false));
    const seen: number[] = [];
    const errors: string[] = [];
    for (let i = 0; running; i++) {
      try {
        await call(client, 'propose_memo_edit', { meeting_id: meeting, content: `Version ${i}\n` });
        seen.push(count.get() as number);
      } catch (error) {
        errors.push((error as Error).message);
      }
    }
    const done = await load.result;
    expect(done.stderr).toBe('');
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(`Restored ${MEETINGS} meetings from ${file}`);
    expect(errors).toEqual([]);
    expect(count.get()).toBe(MEETINGS + 1);
    // At least one proposal was committed while the load had restored some meetings but not all.
    const during = seen.filter((n) => n > 1 && n < MEETINGS + 1);
    expect(during.length).toBeGreaterThan(0);
  }, 300_000);
});
