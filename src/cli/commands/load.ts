import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as V from 'valibot';
import { EXIT, type CommandSpec } from '../framework.js';
import { plural, table } from '../text.js';
import { InvalidInputError } from '../../errors.js';
import { shownId } from '../../db/model/export.js';
import type { LoadOptions } from '../../db/store.js';
import { EXPORT_FORMAT, type MeetingExport } from '../../db/queries/types.js';

/** Larger than any export a person makes, smaller than what V8 can hold as one string. */
export const MAX_LOAD_BYTES = 400 * 1024 * 1024;
const MAX_SHOWN_FAILURES = 20;

const load: CommandSpec = {
  name: 'load',
  summary: 'Restore meetings from an export (JSON)',
  description:
    'Restore meetings from a file written by `syntheo meetings export` (or the MCP tool export_meeting): one\nrecord, an array of records, {"meetings": [...]}, or what `syntheo --json meetings export` prints. IDs,\nfolders and series are kept. A meeting that already exists is replaced by the file\'s version (one that is\nidentical is skipped), so loading the same file twice changes nothing. Each meeting is restored whole or\nnot at all, in short transactions, so assistants can keep working meanwhile. A meeting that cannot be\nrestored is reported (exit 1) and the others are restored. Markdown exports cannot be loaded. Creates the\ndatabase when missing.',
  positionals: [{ name: 'file', required: true, description: 'Export file (JSON), or - to read stdin' }],
  examples: ['syntheo load backup.json', 'syntheo meetings export mtg_0123456789abcdef | syntheo --db other.db load -'],
  async run(ctx) {
    const file = ctx.positionals[0]!;
    const source = file === '-' ? 'stdin' : resolve(file);
    const input = parseJson(await readInput(file, source), source);
    const check = await exportCheck();
    const store = await ctx.store({ create: true });
    const result = await store.admin.load(input, { check });
    const n = result.meetings.length;
    const failures = result.failed.slice(0, MAX_SHOWN_FAILURES).map((f) => `  ${f.error}`);
    if (result.failed.length > MAX_SHOWN_FAILURES) failures.push(`  ... and ${result.failed.length - MAX_SHOWN_FAILURES} more (--json lists them all).`);
    // Nothing restored at all: an error, as for a file that is not an export.
    if (n === 0 && result.skipped.length === 0 && result.failed.length > 0)
      throw new InvalidInputError(
        result.failed.length === 1 ? result.failed[0]!.error : [`None of the ${result.failed.length} records of ${source} could be restored:`, ...failures].join('\n'),
      );
    const lines: string[] = [];
    if (n + result.skipped.length + result.failed.length === 0) lines.push(`Nothing to restore: ${source} holds no meetings.`);
    if (n > 0)
      lines.push(
        `Restored ${plural(n, 'meeting')} from ${source} into ${store.location}:`,
        '',
        table(result.meetings, [
          { header: 'ID', value: (m) => m.id },
          { header: 'TITLE', value: (m) => m.title, max: 60 },
          { header: 'WORDS', value: (m) => String(m.words), align: 'right' },
        ]),
      );
    if (result.skipped.length > 0)
      lines.push(...(lines.length ? [''] : []), `Skipped ${plural(result.skipped.length, 'meeting')} already in ${store.location} as in the file: ${result.skipped.map((m) => m.id).join(', ')}.`);
    if (result.failed.length > 0)
      lines.push(...(lines.length ? [''] : []), `Could not restore ${plural(result.failed.length, 'record')} (nothing of them was written):`, ...failures);
    return {
      data: { source, database: store.location, meetings: result.meetings, skipped: result.skipped, failed: result.failed },
      text: lines.join('\n'),
      exitCode: result.failed.length > 0 ? EXIT.failed : EXIT.ok,
    };
  },
};

async function readInput(file: string, shown: string): Promise<string> {
  const tooLarge = () =>
    new InvalidInputError(`${shown} is larger than ${MAX_LOAD_BYTES / 1024 / 1024} MiB. Export fewer meetings per file (\`syntheo meetings export ID...\`) and load the files one by one.`);
  if (file === '-') {
    // A pipe has no size to check first: read it with a cap.
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > MAX_LOAD_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  }
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    if (stat.size > MAX_LOAD_BYTES) throw tooLarge();
    return readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'it does not exist' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unknown error');
    throw new InvalidInputError(`Cannot read ${shown}: ${why}.`);
  }
}

function parseJson(text: string, shown: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // `meetings export --format markdown` starts with the title as a heading.
    if (/^\s*#/.test(text))
      throw new InvalidInputError(
        `${shown} is a Markdown export, which cannot be loaded: it leaves out what a restore needs (IDs, word timings). Export the meetings as JSON (the default of \`syntheo meetings export\`) and load that.`,
      );
    // V8's message quotes the text; say where instead.
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new InvalidInputError(`${shown} is not valid JSON${at ? ` (error at character ${at})` : ''}. Give a file written by \`syntheo meetings export\`.`);
  }
}

type RecordCheck = NonNullable<LoadOptions['check']>;

// ---- the record schema ------------------------------------------------------------------------------

type Node = V.GenericSchema & {
  type: string;
  pipe?: readonly (V.GenericSchema | { type: string; kind?: string; metadata?: Record<string, unknown>; description?: string })[];
  entries?: Record<string, V.GenericSchema>;
  item?: V.GenericSchema;
  items?: V.GenericSchema[];
  wrapped?: V.GenericSchema;
};

/** The description the tools' schemas give a date-time; what it promises, a load enforces. */
const ISO_UTC_DESCRIPTION = 'ISO 8601 date-time, UTC';
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * The tools' output schema made strict for input: what the JSON Schema of export_meeting promises
 * (integers, UTC date-times) but the Valibot schema only describes is checked, so that a loaded
 * meeting can always be served back. Every other node is rebuilt as it is.
 */
function strictFor(v: typeof V, schema: V.GenericSchema): V.GenericSchema {
  const s = schema as Node;
  if (s.pipe) {
    const [base, ...actions] = s.pipe as [V.GenericSchema, ...V.PipeAction<unknown, unknown, V.BaseIssue<unknown>>[]];
    const extra: V.PipeAction<unknown, unknown, V.BaseIssue<unknown>>[] = [];
    const meta = actions as { type: string; metadata?: Record<string, unknown>; description?: string }[];
    if (meta.some((a) => a.type === 'metadata' && a.metadata?.type === 'integer'))
      extra.push(v.check((n) => Number.isSafeInteger(n), 'an integer is expected') as V.PipeAction<unknown, unknown, V.BaseIssue<unknown>>);
    if (meta.some((a) => a.type === 'description' && a.description === ISO_UTC_DESCRIPTION))
      extra.push(
        v.check((t) => typeof t === 'string' && ISO_UTC.test(t) && !Number.isNaN(Date.parse(t)), 'an ISO 8601 UTC date-time such as 2026-01-31T09:30:00.000Z is expected') as V.PipeAction<
          unknown,
          unknown,
          V.BaseIssue<unknown>
        >,
      );
    return v.pipe(strictFor(v, base), ...actions, ...extra) as V.GenericSchema;
  }
  switch (s.type) {
    case 'object':
      return v.object(Object.fromEntries(Object.entries(s.entries!).map(([k, e]) => [k, strictFor(v, e)])));
    case 'array':
      return v.array(strictFor(v, s.item!));
    case 'tuple':
      return v.tuple(s.items!.map((i) => strictFor(v, i)));
    case 'nullable':
      return v.nullable(strictFor(v, s.wrapped!));
    case 'optional':
      return v.optional(strictFor(v, s.wrapped!));
    default:
      return schema;
  }
}

function pathOf(issue: V.BaseIssue<unknown>): string {
  let out = '';
  for (const p of issue.path ?? []) out += typeof p.key === 'number' ? `[${p.key}]` : `${out ? '.' : ''}${String(p.key)}`;
  return out;
}

/** Valibot quotes the value it received: escape what a terminal would act on, and keep it short. */
function bounded(message: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this replaces
  const safe = message.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => JSON.stringify(c).slice(1, -1));
  return safe.length > 200 ? `${safe.slice(0, 200)}…` : safe;
}

/** Checks an item of an export file against the export record's schema (export_meeting's output), made strict. */
export async function exportCheck(): Promise<RecordCheck> {
  const [v, { ExportSchema }] = await Promise.all([import('valibot'), import('../../db/model/shapes.js')]);
  const schema = strictFor(v, ExportSchema);
  return (item, record) => {
    const result = v.safeParse(schema, item);
    if (result.success) return { ok: true, record: result.output as MeetingExport };
    const raw = typeof item === 'object' && item !== null && typeof (item as { id?: unknown }).id === 'string' ? (item as { id: string }).id : null;
    const id = raw === null ? null : shownId(raw);
    const isExport = (item as { format?: unknown } | null)?.format === EXPORT_FORMAT;
    const where = isExport && id ? `Meeting ${id} (record ${record})` : `Record ${record} is not a Syntheo meeting export (${EXPORT_FORMAT})`;
    const issue = result.issues[0];
    const path = pathOf(issue);
    return { ok: false, error: `${where}: ${path ? `${path}: ` : ''}${bounded(issue.message)}.` };
  };
}

export const commands: CommandSpec[] = [load];
