import type { Context } from 'hono';
import { isSyntheoError } from '../../errors.js';
import type { ProposalDetail, ProposalItem, Store } from '../../db/store.js';
import { PROPOSAL_STATUSES } from '../../db/schema/enums.js';
import { unifiedDiff } from '../../text/diff.js';
import { intParam, pager, textParam, timeTag } from '../format.js';
import { html, query, type Html } from '../html.js';
import { page, type Notice } from '../layout.js';

const PROPOSALS_PER_PAGE = 50;
const PROPOSAL_STATUS_FILTERS = [...PROPOSAL_STATUSES, 'all'] as const;
type ProposalStatusFilter = (typeof PROPOSAL_STATUS_FILTERS)[number];

export async function proposalsPage(c: Context, store: Store): Promise<Response> {
  const statusParam = c.req.query('status') ?? 'pending';
  const status: ProposalStatusFilter = (PROPOSAL_STATUS_FILTERS as readonly string[]).includes(statusParam) ? (statusParam as ProposalStatusFilter) : 'pending';
  const meetingId = textParam(c.req.query('meeting'), 100);
  const offset = intParam(c.req.query('offset'), 0);
  const { proposals, pagination } = await store.proposals.list({ status, meetingId }, { limit: PROPOSALS_PER_PAGE, offset });
  const params = { status: status === 'pending' ? undefined : status, meeting: meetingId };
  const body = html`<nav aria-label="Proposal status"><p>${PROPOSAL_STATUS_FILTERS.map(
    (s) => html`${s === status ? html`<strong aria-current="true">${s}</strong>` : html`<a href="/proposals${query({ ...params, status: s === 'pending' ? undefined : s })}">${s}</a>`} `,
  )}</p></nav>
${
  proposals.length === 0
    ? html`<p class="muted">${status === 'pending' ? 'No proposal is waiting. Assistants propose edits with propose_memo_edit and propose_summary_edit.' : 'None.'}</p>`
    : html`<table>
<caption class="skip">Proposals</caption>
<thead><tr><th scope="col">Meeting</th><th scope="col">Edit</th><th scope="col">Status</th><th scope="col">Proposed</th><th scope="col">By</th></tr></thead>
<tbody>${proposals.map(row)}</tbody>
</table>`
}
${pager('/proposals', params, pagination, 'proposals')}`;
  return c.html(page({ title: 'Proposals', section: 'proposals', body }).value);
}

function what(p: ProposalItem): string {
  return p.kind === 'memo' ? 'note' : p.target_id ? 'summary' : 'new summary';
}

function statusBadge(p: ProposalItem): Html {
  return html`<span class="badge ${p.status}">${p.status}</span>${p.status === 'pending' && p.stale ? html` <span class="badge stale">stale</span>` : ''}`;
}

function row(p: ProposalItem): Html {
  return html`<tr>
<td><a href="/proposals/${encodeURIComponent(p.id)}">${p.meeting_title}</a></td>
<td>${what(p)}</td>
<td>${statusBadge(p)}</td>
<td>${timeTag(p.created_at)}</td>
<td>${p.proposed_by ?? '—'}</td>
</tr>`;
}

/** A unified diff, one line per div, coloured by its first character. */
export function diffView(diff: string, label: string): Html {
  const lines = diff.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return html`<div class="diff" role="region" aria-label="${label}" tabindex="0">${lines.map((l) => {
    const kind = l.startsWith('+++') || l.startsWith('---') ? 'file' : l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : 'same';
    return html`<div class="${kind}">${l === '' ? ' ' : l}</div>`;
  })}</div>`;
}

const DONE: Record<string, Notice> = {
  applied: { level: 'ok', text: 'Applied: the meeting now has this text.' },
  declined: { level: 'ok', text: 'Declined: nothing was changed.' },
  stale: { level: 'bad', text: 'Not applied: the text changed since the assistant made this proposal. Read the changes below, then tick “Apply anyway” to replace the current text.' },
};

export async function proposalPage(c: Context, store: Store): Promise<Response> {
  const p = await store.proposals.get(c.req.param('id')!);
  const done = c.req.query('done');
  const notice = done !== undefined ? (DONE[done] ?? null) : null;
  return c.html(page({ title: `Proposal for ${p.meeting_title}`, section: 'proposals', body: await proposalBody(store, p), notice }).value, done === 'stale' ? 409 : 200);
}

async function proposalBody(store: Store, p: ProposalDetail): Promise<Html> {
  const meeting = html`<a href="/meetings/${encodeURIComponent(p.meeting_id)}">${p.meeting_title}</a>`;
  let current: Html = html``;
  if (p.status === 'pending' && p.stale) {
    const now = await store.meetings.currentContent({ kind: p.kind, meetingId: p.meeting_id, targetId: p.target_id });
    current =
      now === null
        ? html`<p class="notice bad">What this proposal replaces was deleted. Decline it.</p>`
        : html`<h2>What applying it now would do</h2><p>The ${what(p)} changed after the proposal was made; applying replaces the current text:</p>${diffView(unifiedDiff(now, p.content, what(p)), 'Current text to proposal')}`;
  }
  const path = `/proposals/${encodeURIComponent(p.id)}`;
  return html`<dl class="facts">
<dt>Meeting</dt><dd>${meeting}</dd>
<dt>Edit</dt><dd>${what(p)}</dd>
<dt>Status</dt><dd>${statusBadge(p)}${p.decided_at ? html` ${timeTag(p.decided_at)}` : ''}</dd>
<dt>Proposed</dt><dd>${timeTag(p.created_at)}${p.proposed_by ? html` by ${p.proposed_by}` : ''}</dd>
</dl>
${p.status === 'pending' && p.stale ? html`<p class="notice warn">Stale: the ${what(p)} changed since this proposal was made.</p>` : ''}
<h2>Changes proposed</h2>
${diffView(p.diff, 'Proposed changes')}
${current}
${
  p.status === 'pending'
    ? html`<h2>Decide</h2>
<form method="post" action="${path}/apply">
${p.stale ? html`<p><label class="inline"><input type="checkbox" name="confirm" value="stale"> Apply anyway: replace the ${what(p)} as it is now</label></p>` : ''}
<button type="submit" class="primary">Apply</button>
</form>
<form method="post" action="${path}/decline"><p><button type="submit">Decline</button></p></form>`
    : ''
}`;
}

export async function applyProposal(c: Context, store: Store): Promise<Response> {
  const id = c.req.param('id')!;
  const form = await c.req.parseBody();
  const force = form.confirm === 'stale';
  try {
    await store.proposals.apply(id, { force });
  } catch (error) {
    if (!isSyntheoError(error) || error.kind !== 'conflict') throw error;
    const p = await store.proposals.get(id);
    // Still pending and stale: say so on its page. Anything else (already decided) is shown as is.
    if (p.status === 'pending') return c.redirect(`/proposals/${encodeURIComponent(id)}?done=stale`, 303);
    throw error;
  }
  return c.redirect(`/proposals/${encodeURIComponent(id)}?done=applied`, 303);
}

export async function declineProposal(c: Context, store: Store): Promise<Response> {
  const id = c.req.param('id')!;
  await store.proposals.decline(id);
  return c.redirect(`/proposals/${encodeURIComponent(id)}?done=declined`, 303);
}
