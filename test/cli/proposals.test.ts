import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run, runJson } from './cli.js';
import { openTestDb } from '../support/db.js';
import { makeMeeting, makeSummary } from '../support/factories.js';
import { proposeMemoEdit, proposeSummaryEdit } from '../../src/db/queries/proposals.js';
import { getMeetingOrThrow } from '../../src/db/queries/meetings.js';

// Proposals are staged with the functions the MCP tools call; the person's side is the CLI.
let db: ReturnType<typeof openTestDb>;
let meetingId: string;
let summaryId: string;

beforeEach(() => {
  db = openTestDb();
  meetingId = makeMeeting(db.sqlite, { title: 'Launch review', note: 'Ship on Friday.\n' });
  summaryId = makeSummary(db.sqlite, meetingId, { content: 'Line one\nLine two\nLine three\n' });
});
afterEach(() => db.cleanup());

const summaryEdit = (content = 'Line one\nLine 2, edited\nLine three\nLine four\n') =>
  proposeSummaryEdit(db.sqlite, { meetingId, content, proposedBy: 'claude-code 2.0' }).id;

describe('proposals show', () => {
  it('prints the metadata and the unified diff, without colour when not a terminal', async () => {
    const id = summaryEdit();
    const r = await run(['--db', db.path, 'proposals', 'show', id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Proposal: ${id}\nStatus:   pending\nMeeting:  Launch review (${meetingId})\nChanges:  summary ${summaryId}\n`);
    expect(r.stdout).toMatch(/Proposed: \d{4}-\d\d-\d\d \d\d:\d\d UTC \((just now|\d+ s ago)\) by claude-code 2\.0\n/);
    expect(r.stdout).toContain(
      [`--- a/summary-${summaryId}.md`, `+++ b/summary-${summaryId}.md`, '@@ -1,3 +1,4 @@', ' Line one', '-Line two', '+Line 2, edited', ' Line three', '+Line four'].join('\n'),
    );
    expect(r.stdout).toContain(`Apply: syntheo proposals apply ${id}    Decline: syntheo proposals decline ${id}`);
    expect(r.stdout).not.toContain('\x1b[');
  });

  it('colours -/+/@@ lines when colour is on, and leaves them plain when off', async () => {
    const { paint, toTerminal } = await import('../../src/cli/terminal.js');
    const { colourDiff } = await import('../../src/cli/commands/proposals.js');
    const diff = '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same\n';
    expect(toTerminal(colourDiff(diff, paint(true)), true)).toBe('\x1b[1m--- a/x\x1b[22m\n\x1b[1m+++ b/x\x1b[22m\n\x1b[36m@@ -1 +1 @@\x1b[39m\n\x1b[31m-old\x1b[39m\n\x1b[32m+new\x1b[39m\n same');
    expect(colourDiff(diff, paint(false))).toBe(diff.trimEnd());
  });

  it('--json carries the diff and the content; unknown id exits 2', async () => {
    const id = summaryEdit();
    const { code, body } = await runJson(db.path, ['proposals', 'show', id]);
    expect(code).toBe(0);
    expect(body.data).toMatchObject({ id, meeting_id: meetingId, kind: 'summary', target_id: summaryId, status: 'pending', stale: false, base_content: 'Line one\nLine two\nLine three\n' });
    expect(body.data.diff).toContain('+Line four\n');
    const missing = await run(['--db', db.path, 'proposals', 'show', 'prp_nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('syntheo: Proposal "prp_nope" does not exist. Use `syntheo proposals list` to find proposal IDs.\n');
  });
});

describe('proposals apply', () => {
  it('happy path: the summary changes and the proposal is applied', async () => {
    const id = summaryEdit();
    const r = await run(['--db', db.path, 'proposals', 'apply', id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Applied ${id}: replaced summary ${summaryId} of "Launch review" (${meetingId}).\nSee it with \`syntheo meetings get ${meetingId}\`.\n`);
    expect(getMeetingOrThrow(db.sqlite, meetingId).summaries[0]!.content).toBe('Line one\nLine 2, edited\nLine three\nLine four\n');
    const shown = await run(['--db', db.path, 'meetings', 'get', meetingId]);
    expect(shown.stdout).toContain('Line 2, edited');
    const listed = await runJson(db.path, ['proposals', 'list', '--status', 'applied']);
    expect(listed.body.data.map((p: { id: string; status: string }) => [p.id, p.status])).toEqual([[id, 'applied']]);
  });

  it('a memo proposal replaces the note', async () => {
    const id = proposeMemoEdit(db.sqlite, { meetingId, content: 'Ship on Monday instead.\n' }).id;
    const { code, body } = await runJson(db.path, ['proposals', 'apply', id]);
    expect(code).toBe(0);
    expect(body.data).toMatchObject({ id, status: 'applied', kind: 'memo' });
    expect(getMeetingOrThrow(db.sqlite, meetingId).note).toBe('Ship on Monday instead.\n');
  });

  it('conflict when the target changed after proposing (exit 1), then --force applies it', async () => {
    const id = summaryEdit();
    db.sqlite.prepare('UPDATE summaries SET content = ? WHERE id = ?').run('Edited by hand\n', summaryId);
    const refused = await run(['--db', db.path, 'proposals', 'apply', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `syntheo: Summary ${summaryId} changed since the proposal was made. Review it with \`syntheo proposals show ${id}\`, then apply with --force to overwrite, or decline it.\n`,
    );
    expect(getMeetingOrThrow(db.sqlite, meetingId).summaries[0]!.content).toBe('Edited by hand\n');
    const json = await runJson(db.path, ['proposals', 'apply', id]);
    expect(json.body.error).toMatchObject({ code: 'conflict', exit_code: 1 });

    const forced = await run(['--db', db.path, 'proposals', 'apply', id, '--force']);
    expect(forced.code).toBe(0);
    expect(getMeetingOrThrow(db.sqlite, meetingId).summaries[0]!.content).toBe('Line one\nLine 2, edited\nLine three\nLine four\n');
  });

  it('a declined proposal cannot be applied (exit 1), nor declined again', async () => {
    const id = summaryEdit();
    const declined = await run(['--db', db.path, 'proposals', 'decline', id]);
    expect(declined.code).toBe(0);
    expect(declined.stdout).toBe(`Declined ${id}; "Launch review" (${meetingId}) is unchanged.\n`);
    const apply = await run(['--db', db.path, 'proposals', 'apply', id]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toMatch(new RegExp(`^syntheo: Proposal ${id} was already declined at \\S+; only a pending proposal can be applied\\.\\n$`));
    expect((await run(['--db', db.path, 'proposals', 'apply', id, '--force'])).code).toBe(1);
    expect((await run(['--db', db.path, 'proposals', 'decline', id])).code).toBe(1);
    expect(getMeetingOrThrow(db.sqlite, meetingId).summaries[0]!.content).toBe('Line one\nLine two\nLine three\n');
  });

  it('the target summary was deleted: refused even with --force, and shown as such', async () => {
    const id = summaryEdit();
    db.sqlite.prepare('DELETE FROM summaries WHERE id = ?').run(summaryId);
    for (const extra of [[], ['--force']]) {
      const r = await run(['--db', db.path, 'proposals', 'apply', id, ...extra]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(`syntheo: Summary ${summaryId}, which proposal ${id} replaces, was deleted. Decline the proposal.\n`);
    }
    const show = await run(['--db', db.path, 'proposals', 'show', id]);
    expect(show.stdout).toContain('Status:   pending, STALE');
    expect(show.stdout).toContain('The target summary was deleted since this proposal was made: it cannot be applied. Decline it.');
    expect(show.stdout).toContain(`Apply: syntheo proposals apply ${id}    Decline`);
  });

  it('a proposal for a meeting without summary adds one', async () => {
    const bare = makeMeeting(db.sqlite, { title: 'No summary yet' });
    const id = proposeSummaryEdit(db.sqlite, { meetingId: bare, content: 'Brand new summary\n' }).id;
    const r = await run(['--db', db.path, 'proposals', 'apply', id]);
    expect(r.code).toBe(0);
    const summaries = getMeetingOrThrow(db.sqlite, bare).summaries;
    expect(summaries.map((s) => s.content)).toEqual(['Brand new summary\n']);
    expect(r.stdout).toContain(`Applied ${id}: added summary ${summaries[0]!.id} of "No summary yet"`);
  });
});

describe('stale proposals', () => {
  it('a proposal whose target another applied proposal changed is flagged in list and show', async () => {
    const first = summaryEdit('Line one\nFirst rewrite\nLine three\n');
    const second = summaryEdit('Line one\nLine two\nLine three, second rewrite\n');
    expect((await run(['--db', db.path, 'proposals', 'apply', first])).code).toBe(0);

    const list = await run(['--db', db.path, 'proposals', 'list']);
    const row = list.stdout.split('\n').find((l) => l.startsWith(second));
    expect(row).toMatch(new RegExp(`^${second}\\s+pending \\(stale\\)\\s+summary ${summaryId}\\s+Launch review \\(${meetingId}\\)\\s+(just now|\\d+ s ago)$`));
    expect(list.stdout).not.toContain(first);
    const json = await runJson(db.path, ['proposals', 'list', '--status', 'all']);
    expect(json.body.data.map((p: { id: string; status: string; stale: boolean }) => [p.id, p.status, p.stale])).toEqual(
      expect.arrayContaining([
        [first, 'applied', false],
        [second, 'pending', true],
      ]),
    );

    const show = await run(['--db', db.path, 'proposals', 'show', second]);
    expect(show.stdout).toContain('Status:   pending, STALE');
    expect(show.stdout).toContain('The summary changed since this proposal was made.');
    // Against the current text, the second proposal would undo the first one's line.
    expect(show.stdout).toContain('Against the current text (what --force would write):');
    expect(show.stdout).toContain(' Line one\n-First rewrite\n-Line three\n+Line two\n+Line three, second rewrite');
    expect(show.stdout).toContain(`Apply: syntheo proposals apply ${second} --force`);
    expect((await run(['--db', db.path, 'proposals', 'apply', second])).code).toBe(1);
  });

  it('list filters by meeting and status, and pages', async () => {
    const other = makeMeeting(db.sqlite, { title: 'Other' });
    proposeMemoEdit(db.sqlite, { meetingId: other, content: 'x\n' });
    const a = summaryEdit();
    const b = proposeMemoEdit(db.sqlite, { meetingId, content: 'Memo\n' }).id;
    // Newest first: make the order certain even when both were created in the same millisecond.
    db.sqlite.prepare("UPDATE proposals SET created_at = '2026-01-01T00:00:00.000Z' WHERE id = ?").run(a);
    const byMeeting = await runJson(db.path, ['proposals', 'list', '--meeting', meetingId, '--limit', '1']);
    expect(byMeeting.body.data.map((p: { id: string }) => p.id)).toEqual([b]);
    expect(byMeeting.body.pagination).toEqual({ offset: 0, limit: 1, returned: 1, total: 2, next_offset: 1 });
    const next = await runJson(db.path, ['proposals', 'list', '--meeting', meetingId, '--offset', '1']);
    expect(next.body.data.map((p: { id: string }) => p.id)).toEqual([a]);
    expect((await run(['--db', db.path, 'proposals', 'list', '--status', 'declined'])).stdout).toBe('No declined proposals.\n');
    expect((await run(['--db', db.path, 'proposals', 'list', '--meeting', 'mtg_nope'])).code).toBe(2);
  });
});
