import { optBool, optChoice, optString, pageFlags, pageOptions, type CommandSpec } from '../framework.js';
import { ago, fields, pageFooter, paint, shortTime, table, type Paint } from '../text.js';
import { PAGE_RULES, clampPage } from '../../db/queries/pagination.js';
import { PROPOSAL_STATUS_FILTERS } from '../../db/model/proposals.js';
import type { Store } from '../../db/store.js';
import { unifiedDiff } from '../../text/diff.js';
import type { ProposalDetail, ProposalItem } from '../../db/queries/types.js';

function target(p: ProposalItem): string {
  if (p.kind === 'memo') return 'note';
  return p.target_id ? `summary ${p.target_id}` : 'new summary';
}

function status(p: ProposalItem): string {
  return p.stale ? `${p.status} (stale)` : p.status;
}

const list: CommandSpec = {
  name: 'proposals list',
  summary: 'List proposals staged by assistants (pending by default)',
  description:
    'List the edits that assistants proposed through MCP, newest first. "stale" means the target changed since the\nproposal was made: `apply` then needs --force.',
  options: {
    meeting: { type: 'string', value: 'ID', description: 'Only proposals for this meeting' },
    status: { type: 'string', value: 'STATUS', description: 'pending (default), applied, declined or all' },
    ...pageOptions(PAGE_RULES.proposals, 'proposals'),
  },
  examples: ['syntheo proposals list', 'syntheo proposals list --status all --meeting mtg_0123456789abcdef', "syntheo --json proposals list | jq '.data[] | select(.stale)'"],
  async run(ctx) {
    const statusFilter = optChoice(ctx.options, 'status', PROPOSAL_STATUS_FILTERS) ?? 'pending';
    const { limit, offset } = pageFlags(ctx.options);
    const store = await ctx.store({ create: false });
    const result = await store.proposals.list({ meetingId: optString(ctx.options, 'meeting'), status: statusFilter }, clampPage(PAGE_RULES.proposals, limit, offset));
    const p = result.pagination;
    const now = Date.now();
    const text =
      p.total === 0
        ? statusFilter === 'pending'
          ? 'No pending proposals. (`--status all` lists decided ones too.)'
          : `No ${statusFilter === 'all' ? '' : `${statusFilter} `}proposals.`
        : [
            result.proposals.length
              ? table(result.proposals, [
                  { header: 'ID', value: (x) => x.id },
                  { header: 'STATUS', value: status },
                  { header: 'CHANGES', value: target },
                  { header: 'MEETING', value: (x) => `${x.meeting_title} (${x.meeting_id})`, max: 60 },
                  { header: 'PROPOSED', value: (x) => ago(x.created_at, now) },
                ])
              : '',
            pageFooter(p, 'proposal'),
            result.proposals.some((x) => x.status === 'pending') ? 'Review one with `syntheo proposals show ID`.' : '',
          ]
            .filter(Boolean)
            .join('\n\n');
    return { data: result.proposals, pagination: p, text };
  },
};

/** The target's content now, or null when the target summary was deleted (or is a new summary). */
function currentContent(store: Store, p: ProposalDetail): Promise<string | null> {
  return store.meetings.currentContent({ kind: p.kind, meetingId: p.meeting_id, targetId: p.target_id });
}

export function colourDiff(diff: string, c: Paint): string {
  return diff
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      if (line.startsWith('--- ') || line.startsWith('+++ ')) return c.bold(line);
      if (line.startsWith('@@')) return c.cyan(line);
      if (line.startsWith('-')) return c.red(line);
      if (line.startsWith('+')) return c.green(line);
      return line;
    })
    .join('\n');
}

function showText(p: ProposalDetail, current: string | null, targetGone: boolean, c: Paint): string {
  const now = Date.now();
  const rows: [string, string][] = [
    ['Proposal', p.id],
    ['Status', p.status === 'pending' && p.stale ? c.yellow('pending, STALE') : p.status],
    ['Meeting', `${p.meeting_title} (${p.meeting_id})`],
    ['Changes', p.kind === 'memo' ? "the meeting's note" : p.target_id ? `summary ${p.target_id}` : 'adds a new summary'],
    ['Proposed', `${shortTime(p.created_at)} UTC (${ago(p.created_at, now)})${p.proposed_by ? ` by ${p.proposed_by}` : ''}`],
  ];
  if (p.decided_at) rows.push([p.status === 'applied' ? 'Applied' : 'Declined', `${shortTime(p.decided_at)} UTC (${ago(p.decided_at, now)})`]);
  const out = [fields(rows), ''];
  if (p.status === 'pending' && p.stale) {
    out.push(
      c.yellow(
        targetGone
          ? `The target summary was deleted since this proposal was made: it cannot be applied. Decline it.`
          : `The ${p.kind === 'memo' ? 'note' : 'summary'} changed since this proposal was made. The diff below is against the text the assistant saw;\napplying needs --force and replaces the current text (see "Against the current text").`,
      ),
      '',
    );
  }
  out.push(p.diff === '' ? '(no changes)' : colourDiff(p.diff, c));
  if (p.status === 'pending' && p.stale && current !== null) {
    const now2 = unifiedDiff(current, p.content, p.kind === 'memo' ? 'note.md' : `summary-${p.target_id}.md`);
    out.push('', c.bold('Against the current text (what --force would write):'), '', now2 === '' ? '(no changes: the current text is the proposed text)' : colourDiff(now2, c));
  }
  if (p.status === 'pending') {
    out.push('', `Apply: syntheo proposals apply ${p.id}${p.stale && !targetGone ? ' --force' : ''}    Decline: syntheo proposals decline ${p.id}`);
  }
  return out.join('\n');
}

const show: CommandSpec = {
  name: 'proposals show',
  summary: 'Show a proposal and its unified diff',
  description:
    'Show a proposal: what it changes, who proposed it and when, and the unified diff from the text the assistant saw\nto the proposed text (coloured on a terminal; NO_COLOR turns colours off). A stale proposal also shows the diff\nagainst the current text. Nothing is applied.',
  positionals: [{ name: 'id', required: true, description: 'Proposal ID (prp_...)' }],
  examples: ['syntheo proposals show prp_0123456789abcdef', 'syntheo proposals show prp_0123456789abcdef | less -R', "syntheo --json proposals show prp_0123456789abcdef | jq -r .data.diff"],
  async run(ctx) {
    const store = await ctx.store({ create: false });
    const p = await store.proposals.get(ctx.positionals[0]!);
    const current = p.status === 'pending' ? await currentContent(store, p) : null;
    const targetGone = p.kind === 'summary' && p.target_id !== null && p.status === 'pending' && current === null;
    return { data: p, text: showText(p, current, targetGone, paint(ctx.colour)) };
  },
};

const apply: CommandSpec = {
  name: 'proposals apply',
  summary: 'Apply a pending proposal to its meeting',
  description:
    "Apply a pending proposal: the proposed text replaces the summary or the note (or becomes a new summary), and\nthe proposal is marked applied, in one transaction. Refused (exit 1) when the target changed since the proposal\nwas made (unless --force), when the target summary was deleted, or when the proposal is not pending.",
  positionals: [{ name: 'id', required: true, description: 'Proposal ID (prp_...)' }],
  options: { force: { type: 'boolean', description: 'Apply even though the target changed since the proposal was made (overwrites those changes)' } },
  examples: ['syntheo proposals apply prp_0123456789abcdef', 'syntheo proposals apply prp_0123456789abcdef --force'],
  async run(ctx) {
    const store = await ctx.store({ create: true });
    const p = await store.proposals.apply(ctx.positionals[0]!, { force: optBool(ctx.options, 'force') });
    const what = p.kind === 'memo' ? "replaced the meeting's note" : p.base_content === null ? `added summary ${p.target_id}` : `replaced summary ${p.target_id}`;
    return { data: p, text: `Applied ${p.id}: ${what} of "${p.meeting_title}" (${p.meeting_id}).\nSee it with \`syntheo meetings get ${p.meeting_id}\`.` };
  },
};

const decline: CommandSpec = {
  name: 'proposals decline',
  summary: 'Decline a pending proposal (the meeting does not change)',
  description: 'Decline a pending proposal. The meeting does not change. Refused (exit 1) when the proposal is not pending.',
  positionals: [{ name: 'id', required: true, description: 'Proposal ID (prp_...)' }],
  examples: ['syntheo proposals decline prp_0123456789abcdef'],
  async run(ctx) {
    const store = await ctx.store({ create: true });
    const p = await store.proposals.decline(ctx.positionals[0]!);
    return { data: p, text: `Declined ${p.id}; "${p.meeting_title}" (${p.meeting_id}) is unchanged.` };
  },
};

export const commands: CommandSpec[] = [list, show, apply, decline];
