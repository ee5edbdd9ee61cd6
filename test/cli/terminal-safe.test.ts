// 13.7: untrusted text (content, proposed_by, titles, errors) cannot drive the reviewer's terminal.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, runJson } from './cli.js';
import { openTestDb } from '../support/db.js';
import { makeMeeting } from '../support/factories.js';
import { proposeMemoEdit } from '../../src/db/queries/proposals.js';

// The attack of issue 13.7: carriage return and erase-line hide a line that `apply` would store.
const HIDDEN = 'Wire the Q4 budget to account 12-3456 today';
const CONTENT = `Ship on Friday.\n${HIDDEN}\r\x1b[2K\x1b[1AShip on Friday.\n`;
const BY = 'claude-code\x1b]0;owned\x07\x1b[8m \u009b2J\u202eevil';
const TITLE = 'Launch\x1b[2K\rreview\u202e';

let db: ReturnType<typeof openTestDb>;
let meetingId: string;
let proposalId: string;
beforeEach(() => {
  db = openTestDb();
  meetingId = makeMeeting(db.sqlite, { title: TITLE, note: 'Ship on Friday.\n' });
  proposalId = proposeMemoEdit(db.sqlite, { meetingId, content: CONTENT, proposedBy: BY }).id;
});
afterEach(() => db.cleanup());

/** No byte that a terminal acts on, other than newline (and tab). */
// eslint-disable-next-line no-control-regex -- control characters are what the output must not hold
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('human output is terminal-safe', () => {
  it('proposals show: the hidden line, the escapes and the client name are shown, not acted on', async () => {
    const r = await run(['--db', db.path, 'proposals', 'show', proposalId]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toContain(`+${HIDDEN}␍␛[2K␛[1AShip on Friday.\n`);
    expect(r.stdout).toContain('by claude-code␛]0;owned␇␛[8m <U+009B>2J<U+202E>evil\n');
    expect(r.stdout).toContain('Meeting:  Launch␛[2K␍review<U+202E> (');
  });

  it('proposals list: the meeting title in the table is neutralised', async () => {
    const r = await run(['--db', db.path, 'proposals', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stdout).toContain(`Launch␛[2K␍review<U+202E> (${meetingId})`);
  });

  it('meetings get and an error message quoting what was typed are neutralised too', async () => {
    const get = await run(['--db', db.path, 'meetings', 'get', meetingId]);
    expect(get.stdout).not.toMatch(CONTROL);
    expect(get.stdout).toContain('Launch␛[2K␍review<U+202E>');
    const missing = await run(['--db', db.path, 'proposals', 'show', 'prp_\x1b[2Jx']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('syntheo: Proposal "prp_␛[2Jx" does not exist. "prp_␛[2Jx" is not a proposal ID (they look like prp_...): `syntheo proposals list` lists them.\n');
  });

  it('--json stays exact: the content and the name as stored', async () => {
    const { code, body } = await runJson(db.path, ['proposals', 'show', proposalId]);
    expect(code).toBe(0);
    expect(body.data.content).toBe(CONTENT);
    expect(body.data.proposed_by).toBe(BY);
  });
});

