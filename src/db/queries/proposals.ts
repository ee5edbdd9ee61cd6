import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { newId } from '../ids.js';
import { nowIso } from '../time.js';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors.js';
import { unifiedDiff } from '../../text/diff.js';
import { assertMeetingExists, meetingNotFound } from './meetings.js';
import { notFound, wrongKindHint } from './not-found.js';
import { pagination } from './pagination.js';
import type { ProposalKind, ProposalStatus } from '../schema/enums.js';
import type { Page, Pagination, ProposalDetail, ProposalItem } from './types.js';
import { MAX_PROPOSAL_BYTES, type ProposalStatusFilter } from '../model/proposals.js';

// Pure constants live in src/db/model/proposals.ts; re-exported for the callers that import them from here.
export { MAX_PROPOSAL_BYTES, PROPOSAL_STATUS_FILTERS, type ProposalStatusFilter } from '../model/proposals.js';

interface ProposalRow {
  id: string;
  meeting_id: string;
  meeting_title: string;
  kind: ProposalKind;
  target_id: string | null;
  status: ProposalStatus;
  stale: number;
  proposed_by: string | null;
  created_at: string;
  decided_at: string | null;
}

// A pending proposal is stale when its target no longer holds the content it was made against
// (or the target summary was deleted). A proposal for a new summary never is.
const STALE = `CASE
    WHEN p.status != 'pending' THEN 0
    WHEN p.kind = 'memo' THEN (SELECT m2.note FROM meetings m2 WHERE m2.id = p.meeting_id) IS NOT p.base_content
    WHEN p.target_id IS NULL THEN 0
    ELSE coalesce((SELECT s.content FROM summaries s WHERE s.id = p.target_id) IS NOT p.base_content, 1)
  END`;

const ITEM_COLUMNS = `p.id, p.meeting_id, m.title AS meeting_title, p.kind, p.target_id, p.status, ${STALE} AS stale,
  p.proposed_by, p.created_at, p.decided_at`;

function toItem(r: ProposalRow): ProposalItem {
  return { ...r, stale: r.stale === 1 };
}

function checkContent(content: string, what: string): void {
  if (content.trim() === '') throw new InvalidInputError(`content is empty. Pass the full replacement ${what} in Markdown.`);
  if (Buffer.byteLength(content) > MAX_PROPOSAL_BYTES) throw new InvalidInputError(`content is larger than ${MAX_PROPOSAL_BYTES} bytes; a ${what} must be shorter.`);
}

export interface SummaryEditRequest {
  meetingId: string;
  content: string;
  targetId?: string;
  proposedBy?: string | null;
}

/** Stages a replacement of a summary (or a new summary when the meeting has none). Never applies it. */
export function proposeSummaryEdit(sqlite: Sqlite, request: SummaryEditRequest): ProposalDetail {
  checkContent(request.content, 'summary');
  const id = sqlite
    .transaction((): string => {
      assertMeetingExists(sqlite, request.meetingId);
      const summaries = stmt<{ id: string; content: string }>(sqlite, 'SELECT id, content FROM summaries WHERE meeting_id = ? ORDER BY position, created_at, id').all(
        request.meetingId,
      );
      let target: { id: string; content: string } | undefined;
      if (request.targetId !== undefined) {
        target = summaries.find((s) => s.id === request.targetId);
        if (!target) throw summaryNotFound(sqlite, request.targetId, request.meetingId);
      } else if (summaries.length === 1) {
        target = summaries[0];
      } else if (summaries.length > 1) {
        throw new ConflictError(
          `Meeting ${request.meetingId} has ${summaries.length} summaries (${summaries.map((s) => s.id).join(', ')}). Pass target_id to say which one to replace.`,
        );
      }
      if (target && target.content === request.content)
        throw new ConflictError(`The proposed content is identical to summary ${target.id}; there is nothing to change.`);
      return insertProposal(sqlite, request.meetingId, 'summary', target?.id ?? null, request.content, target?.content ?? null, request.proposedBy ?? null);
    })
    .immediate();
  return getProposalOrThrow(sqlite, id);
}

export interface MemoEditRequest {
  meetingId: string;
  content: string;
  proposedBy?: string | null;
}

/** Stages a replacement of the meeting's canonical note. Never applies it. */
export function proposeMemoEdit(sqlite: Sqlite, request: MemoEditRequest): ProposalDetail {
  checkContent(request.content, 'note');
  const id = sqlite
    .transaction((): string => {
      const meeting = stmt<{ note: string }>(sqlite, 'SELECT note FROM meetings WHERE id = ?').get(request.meetingId);
      if (!meeting) throw meetingNotFound(sqlite, request.meetingId);
      if (meeting.note === request.content) throw new ConflictError(`The proposed content is identical to the meeting's current note; there is nothing to change.`);
      return insertProposal(sqlite, request.meetingId, 'memo', null, request.content, meeting.note, request.proposedBy ?? null);
    })
    .immediate();
  return getProposalOrThrow(sqlite, id);
}

function insertProposal(
  sqlite: Sqlite,
  meetingId: string,
  kind: ProposalKind,
  targetId: string | null,
  content: string,
  baseContent: string | null,
  proposedBy: string | null,
): string {
  const id = newId('proposal');
  stmt(
    sqlite,
    `INSERT INTO proposals (id, meeting_id, kind, target_id, content, base_content, status, proposed_by, created_at)
     VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
  ).run(id, meetingId, kind, targetId, content, baseContent, proposedBy, nowIso());
  return id;
}

export interface ProposalFilter {
  meetingId?: string;
  status: ProposalStatusFilter;
}

export function listProposals(sqlite: Sqlite, filter: ProposalFilter, page: Page): { proposals: ProposalItem[]; pagination: Pagination } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.meetingId !== undefined) {
    assertMeetingExists(sqlite, filter.meetingId);
    clauses.push('p.meeting_id = ?');
    params.push(filter.meetingId);
  }
  if (filter.status !== 'all') {
    clauses.push('p.status = ?');
    params.push(filter.status);
  }
  const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
  const rows = stmt<ProposalRow>(
    sqlite,
    // CROSS JOIN keeps proposals the outer loop: left to itself the planner may walk every meeting.
    `SELECT ${ITEM_COLUMNS} FROM proposals p CROSS JOIN meetings m ON m.id = p.meeting_id ${where} ORDER BY p.created_at DESC, p.id DESC LIMIT ? OFFSET ?`,
  ).all(...params, page.limit, page.offset);
  const total = stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM proposals p ${where}`).get(...params)!.n;
  return { proposals: rows.map(toItem), pagination: pagination(page, rows.length, total) };
}

function proposalNotFound(sqlite: Sqlite, id: string): NotFoundError {
  return notFound(sqlite, 'proposal', id);
}

/** A target_id that is no summary of this meeting: maybe one of another meeting, or an ID of another kind. */
function summaryNotFound(sqlite: Sqlite, targetId: string, meetingId: string): NotFoundError {
  const owner = stmt<{ meeting_id: string }>(sqlite, 'SELECT meeting_id FROM summaries WHERE id = ?').get(targetId);
  const hint = owner ? { is: 'summary' as const, meetingId: owner.meeting_id } : wrongKindHint(sqlite, 'summary', targetId);
  return new NotFoundError({ what: 'summary', id: targetId, meetingId, ...(hint && { hint }) });
}

export function getProposalOrThrow(sqlite: Sqlite, id: string): ProposalDetail {
  const row = stmt<ProposalRow & { content: string; base_content: string | null }>(
    sqlite,
    `SELECT ${ITEM_COLUMNS}, p.content, p.base_content FROM proposals p JOIN meetings m ON m.id = p.meeting_id WHERE p.id = ?`,
  ).get(id);
  if (!row) throw proposalNotFound(sqlite, id);
  const label = row.kind === 'memo' ? 'note.md' : `summary-${row.target_id ?? 'new'}.md`;
  return { ...toItem(row), content: row.content, base_content: row.base_content, diff: unifiedDiff(row.base_content ?? '', row.content, label) };
}

function requirePending(sqlite: Sqlite, id: string, action: 'declined' | 'applied'): { status: ProposalStatus } {
  const row = stmt<{ status: ProposalStatus; decided_at: string | null }>(sqlite, 'SELECT status, decided_at FROM proposals WHERE id = ?').get(id);
  if (!row) throw proposalNotFound(sqlite, id);
  if (row.status !== 'pending')
    throw new ConflictError(`Proposal ${id} was already ${row.status}${row.decided_at ? ` at ${row.decided_at}` : ''}; only a pending proposal can be ${action}.`);
  return row;
}

/** Declines a pending proposal; the meeting does not change. */
export function declineProposalOrThrow(sqlite: Sqlite, id: string): ProposalDetail {
  sqlite
    .transaction(() => {
      requirePending(sqlite, id, 'declined');
      stmt(sqlite, "UPDATE proposals SET status = 'declined', decided_at = ? WHERE id = ?").run(nowIso(), id);
    })
    .immediate();
  return getProposalOrThrow(sqlite, id);
}

/**
 * The user's decision (`syntheo proposals apply`): writes the proposed content and marks the proposal
 * applied, in one transaction. Refuses when the target changed since the proposal was made (unless
 * `force`) or when the target summary was deleted.
 */
export function applyProposalOrThrow(sqlite: Sqlite, id: string, options: { force: boolean }): ProposalDetail {
  let newSummaryId: string | null = null;
  sqlite
    .transaction(() => {
      requirePending(sqlite, id, 'applied');
      const p = stmt<{ meeting_id: string; kind: ProposalKind; target_id: string | null; content: string; base_content: string | null }>(
        sqlite,
        'SELECT meeting_id, kind, target_id, content, base_content FROM proposals WHERE id = ?',
      ).get(id)!;
      const now = nowIso();
      const changed = `changed since the proposal was made. Review it with \`syntheo proposals show ${id}\`, then apply with --force to overwrite, or decline it.`;
      if (p.kind === 'memo') {
        const meeting = stmt<{ note: string }>(sqlite, 'SELECT note FROM meetings WHERE id = ?').get(p.meeting_id)!;
        if (meeting.note !== p.base_content && !options.force) throw new ConflictError(`The meeting's note ${changed}`);
        stmt(sqlite, 'UPDATE meetings SET note = ?, updated_at = ? WHERE id = ?').run(p.content, now, p.meeting_id);
      } else if (p.target_id !== null) {
        const summary = stmt<{ content: string }>(sqlite, 'SELECT content FROM summaries WHERE id = ?').get(p.target_id);
        if (!summary) throw new ConflictError(`Summary ${p.target_id}, which proposal ${id} replaces, was deleted. Decline the proposal.`);
        if (summary.content !== p.base_content && !options.force) throw new ConflictError(`Summary ${p.target_id} ${changed}`);
        stmt(sqlite, "UPDATE summaries SET content = ?, source = 'proposal', updated_at = ? WHERE id = ?").run(p.content, now, p.target_id);
      } else {
        newSummaryId = newId('summary');
        const position = stmt<{ n: number }>(sqlite, 'SELECT coalesce(max(position) + 1, 0) AS n FROM summaries WHERE meeting_id = ?').get(p.meeting_id)!.n;
        stmt(
          sqlite,
          "INSERT INTO summaries (id, meeting_id, title, content, position, source, created_at, updated_at) VALUES (?, ?, 'Summary', ?, ?, 'proposal', ?, ?)",
        ).run(newSummaryId, p.meeting_id, p.content, position, now, now);
      }
      stmt(sqlite, 'UPDATE meetings SET updated_at = ? WHERE id = ?').run(now, p.meeting_id);
      // A proposal that created a summary now points at it.
      stmt(sqlite, "UPDATE proposals SET status = 'applied', decided_at = ?, target_id = coalesce(target_id, ?) WHERE id = ?").run(now, newSummaryId, id);
    })
    .immediate();
  return getProposalOrThrow(sqlite, id);
}
