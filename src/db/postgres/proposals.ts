import type { Pool } from 'pg';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors.js';
import { unifiedDiff } from '../../text/diff.js';
import { newId } from '../ids.js';
import { nowIso } from '../time.js';
import { pagination } from '../queries/pagination.js';
import { MAX_PROPOSAL_BYTES, type MemoEditRequest, type ProposalFilter, type SummaryEditRequest } from '../queries/proposals.js';
import type { ProposalKind, ProposalStatus } from '../schema/enums.js';
import type { Page, Pagination, ProposalDetail, ProposalItem } from '../queries/types.js';
import { assertMeetingExists, meetingNotFound, notFound, wrongKindHint } from './meetings.js';
import { one, rows, transaction, type Queryable } from './sql.js';
import { lockMeetingFirst } from './transcripts.js';

// Proposals on PostgreSQL, as src/db/queries/proposals.ts. Read-then-write steps lock the rows they
// read (FOR UPDATE), where SQLite takes its IMMEDIATE write lock.

const STALE = `CASE
    WHEN p.status <> 'pending' THEN false
    WHEN p.kind = 'memo' THEN (SELECT m2.note FROM meetings m2 WHERE m2.id = p.meeting_id) IS DISTINCT FROM p.base_content
    WHEN p.target_id IS NULL THEN false
    ELSE coalesce((SELECT s.content FROM summaries s WHERE s.id = p.target_id) IS DISTINCT FROM p.base_content, true)
  END`;

const ITEM_COLUMNS = `p.id, p.meeting_id, m.title AS meeting_title, p.kind, p.target_id, p.status, ${STALE} AS stale,
  p.proposed_by, p.created_at, p.decided_at`;

function checkContent(content: string, what: string): void {
  if (content.trim() === '') throw new InvalidInputError(`content is empty. Pass the full replacement ${what} in Markdown.`);
  if (Buffer.byteLength(content) > MAX_PROPOSAL_BYTES) throw new InvalidInputError(`content is larger than ${MAX_PROPOSAL_BYTES} bytes; a ${what} must be shorter.`);
}

async function insertProposal(q: Queryable, meetingId: string, kind: ProposalKind, targetId: string | null, content: string, base: string | null, by: string | null): Promise<string> {
  const id = newId('proposal');
  await q.query(
    `INSERT INTO proposals (id, meeting_id, kind, target_id, content, base_content, status, proposed_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)`,
    [id, meetingId, kind, targetId, content, base, by, nowIso()],
  );
  return id;
}

async function summaryNotFound(q: Queryable, targetId: string, meetingId: string): Promise<NotFoundError> {
  const owner = await one<{ meeting_id: string }>(q, 'SELECT meeting_id FROM summaries WHERE id = $1', [targetId]);
  const hint = owner ? { is: 'summary' as const, meetingId: owner.meeting_id } : await wrongKindHint(q, 'summary', targetId);
  return new NotFoundError({ what: 'summary', id: targetId, meetingId, ...(hint && { hint }) });
}

export async function proposeSummaryEdit(pool: Pool, request: SummaryEditRequest): Promise<ProposalDetail> {
  checkContent(request.content, 'summary');
  const id = await transaction(pool, async (c) => {
    await assertMeetingExists(c, request.meetingId);
    const summaries = await rows<{ id: string; content: string }>(c, 'SELECT id, content FROM summaries WHERE meeting_id = $1 ORDER BY position, created_at COLLATE "C", id COLLATE "C"', [
      request.meetingId,
    ]);
    let target: { id: string; content: string } | undefined;
    if (request.targetId !== undefined) {
      target = summaries.find((s) => s.id === request.targetId);
      if (!target) throw await summaryNotFound(c, request.targetId, request.meetingId);
    } else if (summaries.length === 1) target = summaries[0];
    else if (summaries.length > 1)
      throw new ConflictError(`Meeting ${request.meetingId} has ${summaries.length} summaries (${summaries.map((s) => s.id).join(', ')}). Pass target_id to say which one to replace.`);
    if (target && target.content === request.content) throw new ConflictError(`The proposed content is identical to summary ${target.id}; there is nothing to change.`);
    return insertProposal(c, request.meetingId, 'summary', target?.id ?? null, request.content, target?.content ?? null, request.proposedBy ?? null);
  });
  return getProposalOrThrow(pool, id);
}

export async function proposeMemoEdit(pool: Pool, request: MemoEditRequest): Promise<ProposalDetail> {
  checkContent(request.content, 'note');
  const id = await transaction(pool, async (c) => {
    const meeting = await one<{ note: string }>(c, 'SELECT note FROM meetings WHERE id = $1', [request.meetingId]);
    if (!meeting) throw await meetingNotFound(c, request.meetingId);
    if (meeting.note === request.content) throw new ConflictError(`The proposed content is identical to the meeting's current note; there is nothing to change.`);
    return insertProposal(c, request.meetingId, 'memo', null, request.content, meeting.note, request.proposedBy ?? null);
  });
  return getProposalOrThrow(pool, id);
}

export async function listProposals(q: Queryable, filter: ProposalFilter, page: Page): Promise<{ proposals: ProposalItem[]; pagination: Pagination }> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.meetingId !== undefined) {
    await assertMeetingExists(q, filter.meetingId);
    clauses.push(`p.meeting_id = $${params.push(filter.meetingId)}`);
  }
  if (filter.status !== 'all') clauses.push(`p.status = $${params.push(filter.status)}`);
  const where = clauses.length ? `WHERE ${clauses.join(' AND ')}` : '';
  const n = params.length;
  // The page and the total in one statement: a row per item (each carrying the total), or one row of nulls but the total.
  const found = await rows<ProposalItem & { total: number }>(
    q,
    `SELECT i.*, t.total FROM (SELECT count(*)::int AS total FROM proposals p ${where}) t
     LEFT JOIN LATERAL (SELECT ${ITEM_COLUMNS} FROM proposals p JOIN meetings m ON m.id = p.meeting_id ${where}
                        ORDER BY p.created_at COLLATE "C" DESC, p.id COLLATE "C" DESC LIMIT $${n + 1} OFFSET $${n + 2}) i ON true
     ORDER BY i.created_at COLLATE "C" DESC, i.id COLLATE "C" DESC`,
    [...params, page.limit, page.offset],
  );
  const total = found[0]!.total;
  const proposals = found.filter((r) => r.id !== null).map(({ total: _, ...item }) => item);
  return { proposals, pagination: pagination(page, proposals.length, total) };
}

const proposalNotFound = (q: Queryable, id: string) => notFound(q, 'proposal', id);

export async function getProposalOrThrow(q: Queryable, id: string): Promise<ProposalDetail> {
  const row = await one<ProposalItem & { content: string; base_content: string | null }>(
    q,
    `SELECT ${ITEM_COLUMNS}, p.content, p.base_content FROM proposals p JOIN meetings m ON m.id = p.meeting_id WHERE p.id = $1`,
    [id],
  );
  if (!row) throw await proposalNotFound(q, id);
  const label = row.kind === 'memo' ? 'note.md' : `summary-${row.target_id ?? 'new'}.md`;
  return { ...row, diff: unifiedDiff(row.base_content ?? '', row.content, label) };
}

async function requirePending(q: Queryable, id: string, action: 'declined' | 'applied'): Promise<void> {
  const row = await one<{ status: ProposalStatus; decided_at: string | null }>(q, 'SELECT status, decided_at FROM proposals WHERE id = $1 FOR UPDATE', [id]);
  if (!row) throw await proposalNotFound(q, id);
  if (row.status !== 'pending') throw new ConflictError(`Proposal ${id} was already ${row.status}${row.decided_at ? ` at ${row.decided_at}` : ''}; only a pending proposal can be ${action}.`);
}

export async function declineProposalOrThrow(pool: Pool, id: string): Promise<ProposalDetail> {
  await transaction(pool, async (c) => {
    await requirePending(c, id, 'declined');
    await c.query("UPDATE proposals SET status = 'declined', decided_at = $1 WHERE id = $2", [nowIso(), id]);
  });
  return getProposalOrThrow(pool, id);
}

export async function applyProposalOrThrow(pool: Pool, id: string, options: { force: boolean }): Promise<ProposalDetail> {
  await transaction(pool, async (c) => {
    await requirePending(c, id, 'applied');
    const p = (await one<{ meeting_id: string; kind: ProposalKind; target_id: string | null; content: string; base_content: string | null }>(
      c,
      'SELECT meeting_id, kind, target_id, content, base_content FROM proposals WHERE id = $1',
      [id],
    ))!;
    const now = nowIso();
    let newSummaryId: string | null = null;
    const changed = `changed since the proposal was made. Review it with \`syntheo proposals show ${id}\`, then apply with --force to overwrite, or decline it.`;
    if (p.kind === 'memo') {
      const meeting = (await one<{ note: string }>(c, 'SELECT note FROM meetings WHERE id = $1 FOR UPDATE', [p.meeting_id]))!;
      if (meeting.note !== p.base_content && !options.force) throw new ConflictError(`The meeting's note ${changed}`);
      await c.query('UPDATE meetings SET note = $1, updated_at = $2 WHERE id = $3', [p.content, now, p.meeting_id]);
    } else if (p.target_id !== null) {
      // The meeting before its summary: the order the search triggers lock in (see lockMeetingFirst).
      await lockMeetingFirst(c, p.meeting_id);
      const summary = await one<{ content: string }>(c, 'SELECT content FROM summaries WHERE id = $1 FOR UPDATE', [p.target_id]);
      if (!summary) throw new ConflictError(`Summary ${p.target_id}, which proposal ${id} replaces, was deleted. Decline the proposal.`);
      if (summary.content !== p.base_content && !options.force) throw new ConflictError(`Summary ${p.target_id} ${changed}`);
      await c.query("UPDATE summaries SET content = $1, source = 'proposal', updated_at = $2 WHERE id = $3", [p.content, now, p.target_id]);
    } else {
      newSummaryId = newId('summary');
      await c.query(
        "INSERT INTO summaries (id, meeting_id, title, content, position, source, created_at, updated_at) SELECT $1, $2, 'Summary', $3, coalesce(max(position) + 1, 0), 'proposal', $4, $4 FROM summaries WHERE meeting_id = $2",
        [newSummaryId, p.meeting_id, p.content, now],
      );
    }
    await c.query('UPDATE meetings SET updated_at = $1 WHERE id = $2', [now, p.meeting_id]);
    await c.query("UPDATE proposals SET status = 'applied', decided_at = $1, target_id = coalesce(target_id, $2) WHERE id = $3", [now, newSummaryId, id]);
  });
  return getProposalOrThrow(pool, id);
}
