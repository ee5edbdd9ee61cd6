import { pageFlags, pageOptions, type CommandSpec } from '../framework.js';
import { MEETING_FILTER_OPTIONS, meetingFilter } from '../filters.js';
import { pageFooter, paint, shortTime } from '../text.js';
import type { SearchHit } from '../../db/store.js';
import { PAGE_RULES, clampPage } from '../../db/queries/pagination.js';

function where(hit: SearchHit): string {
  if (hit.kind === 'transcript') return `transcript, word ${hit.offset}${hit.speaker ? `, ${hit.speaker}` : ''}`;
  if (hit.kind === 'summary') return `summary ${hit.summary_id}`;
  return 'note';
}

const search: CommandSpec = {
  name: 'search',
  summary: 'Find what was said in any meeting (transcripts, summaries, notes)',
  description:
    'Full-text search over every transcript, summary and note (MCP: search_transcripts). Passages that contain\nevery word match; the exact phrase ranks first. Quotes, *, - and NEAR are plain text. Filters combine with AND.\nRead a transcript hit in context with `syntheo meetings transcript ID --offset N`.',
  positionals: [{ name: 'query', required: true, variadic: true, description: 'Words to find' }],
  options: {
    ...MEETING_FILTER_OPTIONS,
    ...pageOptions(PAGE_RULES.search, 'hits'),
  },
  examples: ['syntheo search budget review', 'syntheo search "pricing tiers" --folder Acme/Product --from 2026-01-01', "syntheo --json search onboarding | jq '.data[0]'"],
  async run(ctx) {
    const { limit, offset } = pageFlags(ctx.options);
    const store = await ctx.store({ create: false });
    const query = ctx.positionals.join(' ');
    const result = await store.search.transcripts(
      { query, ...meetingFilter(ctx.options) },
      clampPage(PAGE_RULES.search, limit, offset),
    );
    const p = result.pagination;
    const c = paint(ctx.colour);
    const bold = (s: string) => (ctx.colour ? s.replace(/\*\*(.+?)\*\*/g, (_, w: string) => c.bold(w)) : s);
    const text =
      p.total === 0
        ? `Nothing found for "${query}".`
        : [
            ...result.hits.map((h) => `${c.cyan(shortTime(h.started_at))}  ${h.title}  ${c.dim(`${h.meeting_id} · ${where(h)}`)}\n  ${bold(h.snippet)}`),
            pageFooter(p, 'hit'),
          ].join('\n\n');
    return { data: result.hits, pagination: p, text };
  },
};

export const commands: CommandSpec[] = [search];
