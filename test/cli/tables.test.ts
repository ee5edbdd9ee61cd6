// Tables measured in display columns, cut between graphemes; counts with the right plural.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from './cli.js';
import { openTestDb } from '../support/db.js';
import { makeMeeting } from '../support/factories.js';
import { ensureFolderPath } from '../../src/db/queries/folders.js';
import { proposeMemoEdit } from '../../src/db/queries/proposals.js';
import stringWidth from 'string-width';

const width = (s: string) => stringWidth(s);

let db: ReturnType<typeof openTestDb>;
beforeEach(() => {
  db = openTestDb();
});
afterEach(() => db.cleanup());

/** Half of an emoji: what slicing UTF-16 code units leaves. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('tables', () => {
  it('align CJK folder names: the MEETINGS column ends in the same column on every line', async () => {
    ensureFolderPath(db.sqlite, '会議/設計レビュー');
    ensureFolderPath(db.sqlite, 'Design');
    const r = await run(['--db', db.path, 'folders', 'list']);
    expect(r.code).toBe(0);
    const rows = r.stdout.split('\n\n')[0]!.split('\n');
    expect(rows).toHaveLength(4);
    expect(new Set(rows.map(width)).size).toBe(1);
  });

  it('cut a long emoji title between graphemes, within the column', async () => {
    const title = `${'👩‍👩‍👧'.repeat(30)} review`;
    makeMeeting(db.sqlite, { title });
    const r = await run(['--db', db.path, 'meetings', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(LONE_SURROGATE);
    const row = r.stdout.split('\n')[1]!;
    const cell = row.slice(row.indexOf('👩'), row.indexOf('…') + 1);
    expect(cell).toBe(`${'👩‍👩‍👧'.repeat(23)}…`);
    expect(width(cell)).toBeLessThanOrEqual(48);
  });
});

describe('plurals', () => {
  it('"1 proposal." under a list of one, and "1 pending proposal" in doctor', async () => {
    const meetingId = makeMeeting(db.sqlite, { title: 'Launch' });
    proposeMemoEdit(db.sqlite, { meetingId, content: 'x\n', proposedBy: 'test' });
    const list = await run(['--db', db.path, 'proposals', 'list']);
    expect(list.stdout).toMatch(/^1 proposal\.$/m);
    const doctor = await run(['--db', db.path, 'doctor']);
    expect(doctor.stdout).toMatch(/: schema \d+\/\d+ migrations \(latest [^)]+\); 1 meeting, 0 folders, 1 pending proposal, 0 imports in progress\n/);
  });
});
