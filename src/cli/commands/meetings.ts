import { UsageError, optBool, optChoice, optString, pageFlags, pageOptions, type CommandSpec } from '../framework.js';
import { bytes, pageFooter, plural, shortTime, table, type Column } from '../text.js';
import { transcriptText } from '../../db/model/transcripts.js';
import { PAGE_RULES, clampPage } from '../../db/queries/pagination.js';
import { exportMarkdown, meetingMarkdown } from '../../render/markdown.js';
import type { MeetingExport, MeetingListItem } from '../../db/queries/types.js';
import { writeFileAtomic } from '../files.js';
import { MEETING_FILTER_OPTIONS, hasMeetingFilter, meetingFilter } from '../filters.js';

const MEETING_COLUMNS: Column<MeetingListItem>[] = [
  { header: 'ID', value: (m) => m.id },
  { header: 'STARTED (UTC)', value: (m) => shortTime(m.started_at) },
  { header: 'TITLE', value: (m) => m.title, max: 48 },
  { header: 'FOLDER', value: (m) => m.folder_path ?? '—', max: 32 },
  { header: 'WORDS', value: (m) => String(m.transcript_word_count), align: 'right' },
  { header: 'STATUS', value: (m) => m.processing_status ?? '' },
];

function meetingTable(meetings: MeetingListItem[]): string {
  // The import status column only when some meeting was imported.
  const columns = meetings.some((m) => m.processing_status !== null) ? MEETING_COLUMNS : MEETING_COLUMNS.slice(0, -1);
  return table(meetings, columns);
}

const list: CommandSpec = {
  name: 'meetings list',
  summary: 'List meetings, newest first',
  description:
    'List meetings, newest first, with the filters and paging of the MCP tool list_meetings.\nFilters combine with AND. --folder includes subfolders; --to with a bare date includes that whole day (UTC).',
  options: {
    query: { type: 'string', value: 'Q', description: 'Fragment of the title or the ID, case-insensitive' },
    ...MEETING_FILTER_OPTIONS,
    ...pageOptions(PAGE_RULES.meetings, 'meetings'),
  },
  examples: [
    'syntheo meetings list',
    'syntheo meetings list --query standup --limit 5',
    'syntheo meetings list --folder Projects/Launch --from 2026-01-01 --to 2026-01-31',
    "syntheo --json meetings list | jq -r '.data[].id'",
  ],
  async run(ctx) {
    const { limit, offset } = pageFlags(ctx.options);
    const store = await ctx.store({ create: false });
    const o = ctx.options;
    const result = await store.meetings.list(
      { query: optString(o, 'query'), ...meetingFilter(o) },
      clampPage(PAGE_RULES.meetings, limit, offset),
    );
    const p = result.pagination;
    const filtered = o.query !== undefined || hasMeetingFilter(o);
    const text =
      p.total === 0
        ? filtered
          ? 'No meeting matches these filters.'
          : 'No meetings yet. Try `syntheo demo` for a sample, or `syntheo imports add FILE` to import a recording.'
        : [result.meetings.length ? meetingTable(result.meetings) : '', pageFooter(p, 'meeting')].filter(Boolean).join('\n\n');
    return { data: result.meetings, pagination: p, text };
  },
};

const get: CommandSpec = {
  name: 'meetings get',
  summary: 'Show a meeting (Markdown; detail JSON with --json)',
  description:
    "Show a meeting: metadata, participants, summaries, action items and the note, as Markdown.\nWith --json: the same detail as the MCP tool get_meeting. The transcript is separate: `syntheo meetings transcript ID`.",
  positionals: [{ name: 'id', required: true, description: 'Meeting ID (mtg_...)' }],
  examples: ['syntheo meetings get mtg_0123456789abcdef', 'syntheo --json meetings get mtg_0123456789abcdef | jq .data.summaries'],
  async run(ctx) {
    const store = await ctx.store({ create: false });
    const meeting = await store.meetings.get(ctx.positionals[0]!);
    // The Markdown is shared with the MCP resource, which names the MCP tool; a person wants the command.
    const text = meetingMarkdown(meeting).trimEnd().replace('(read it with get_meeting_transcript)', `(read it with \`syntheo meetings transcript ${meeting.id}\`)`);
    return { data: meeting, text };
  },
};

const transcript: CommandSpec = {
  name: 'meetings transcript',
  summary: "Print a page of a meeting's transcript",
  description:
    "Print a bounded page of a meeting's transcript, as the MCP tool get_meeting_transcript returns it:\nwords joined by spaces, a new line `Speaker: ` where the speaker changes. Offsets count words.",
  positionals: [{ name: 'id', required: true, description: 'Meeting ID (mtg_...)' }],
  options: pageOptions(PAGE_RULES.transcript, 'words'),
  examples: [
    'syntheo meetings transcript mtg_0123456789abcdef',
    'syntheo meetings transcript mtg_0123456789abcdef --offset 200 --limit 500',
    "syntheo --json meetings transcript mtg_0123456789abcdef | jq '.data.words[0]'",
  ],
  async run(ctx) {
    const { limit, offset } = pageFlags(ctx.options);
    const store = await ctx.store({ create: false });
    // The text without times, as this command always printed it (the words carry the timings).
    const page = await store.transcripts.page(ctx.positionals[0]!, clampPage(PAGE_RULES.transcript, limit, offset));
    const { pagination, ...data } = { ...page, text: transcriptText(page.words) };
    const p = pagination;
    let text: string;
    if (p.total === 0) text = 'This meeting has no transcript (yet).';
    else if (p.returned === 0) text = `No words at offset ${p.offset}: the transcript has ${plural(p.total, 'word')}.`;
    else text = `${data.text}\n\n${pageFooter(p, 'word')}`;
    return { data, pagination: p, text };
  },
};

const history: CommandSpec = {
  name: 'meetings history',
  summary: "List the meetings of a meeting's recurring series",
  description: "List the meetings of the same recurring series as the given meeting, newest first (MCP: get_recurring_meeting_history).",
  positionals: [{ name: 'id', required: true, description: 'Meeting ID (mtg_...)' }],
  options: pageOptions(PAGE_RULES.history, 'meetings'),
  examples: ['syntheo meetings history mtg_0123456789abcdef', 'syntheo meetings history mtg_0123456789abcdef --limit 5 --offset 5'],
  async run(ctx) {
    const { limit, offset } = pageFlags(ctx.options);
    const store = await ctx.store({ create: false });
    const result = await store.series.history(ctx.positionals[0]!, clampPage(PAGE_RULES.history, limit, offset));
    const { pagination: p, ...data } = result;
    let text: string;
    if (!result.series) text = `Meeting ${result.meeting_id} does not belong to a recurring series.`;
    else {
      const head = `Series: ${result.series.title} (${result.series.id}${result.series.cadence ? `, ${result.series.cadence}` : ''})`;
      text = [head, result.meetings.length ? meetingTable(result.meetings) : '', pageFooter(p, 'meeting')].filter(Boolean).join('\n\n');
    }
    return { data, pagination: p, text };
  },
};

const FORMATS = ['json', 'markdown'] as const;

const exportCmd: CommandSpec = {
  name: 'meetings export',
  summary: 'Export meetings: the full record (JSON) or Markdown',
  description:
    'Export one or more meetings with everything: metadata, note, summaries, participants, action items and\ntranscripts. JSON is the record of the MCP tool export_meeting (an array for several IDs), which\n`syntheo load` restores. Prints to stdout unless --output is given; an existing file is kept unless --force.',
  positionals: [{ name: 'id', required: true, variadic: true, description: 'Meeting IDs (mtg_...)' }],
  options: {
    format: { type: 'string', value: 'FORMAT', description: 'json (default) or markdown' },
    output: { type: 'string', short: 'o', value: 'FILE', description: 'Write to FILE (atomically) instead of stdout' },
    force: { type: 'boolean', description: 'Overwrite FILE when it exists' },
  },
  examples: [
    'syntheo meetings export mtg_0123456789abcdef > meeting.json',
    'syntheo meetings export mtg_0123456789abcdef mtg_fedcba9876543210 --output backup.json',
    'syntheo meetings export mtg_0123456789abcdef --format markdown -o meeting.md --force',
  ],
  async run(ctx) {
    const format = optChoice(ctx.options, 'format', FORMATS) ?? 'json';
    const output = optString(ctx.options, 'output');
    if (output === '') throw new UsageError('--output needs a file name (or - for stdout).');
    const store = await ctx.store({ create: false });
    // Every ID is read before anything is written: a wrong ID leaves no partial file.
    const records: MeetingExport[] = [];
    for (const id of ctx.positionals) records.push(await store.meetings.export(id));
    const content = render(records, format);
    const data = records.length === 1 ? records[0] : records;
    if (output === undefined || output === '-') {
      if (ctx.json) return { data };
      // The record itself, not an envelope: `syntheo meetings export ID > file.json` is loadable (and exact);
      // on a terminal it is shown terminal-safe.
      if (ctx.tty) ctx.write(content);
      else process.stdout.write(content);
      return { data, text: '' };
    }
    const written = writeFileAtomic(output, content, { force: optBool(ctx.options, 'force') });
    const summary = {
      path: written.path,
      format,
      bytes: written.bytes,
      meetings: records.map((r) => ({ id: r.id, title: r.title })),
    };
    return {
      data: summary,
      text: `Wrote ${plural(records.length, 'meeting')} (${format}, ${bytes(written.bytes)}) to ${written.path}.`,
    };
  },
};

function render(records: MeetingExport[], format: (typeof FORMATS)[number]): string {
  if (format === 'markdown') return records.map(exportMarkdown).join('\n---\n\n');
  return `${JSON.stringify(records.length === 1 ? records[0] : records, null, 2)}\n`;
}

export const commands: CommandSpec[] = [list, get, transcript, history, exportCmd];
