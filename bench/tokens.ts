// What an assistant pays: tokens (o200k, gpt-tokenizer) of every tool and resource answer as a model
// reads it, at the default and the maximum clamps, through the built `syntheo mcp` and the SDK's client.
//   npm run bench:tokens                          # the bench database if generated, else a small one
//   node dist/bench/tokens.js --db bench/.data/bench-100000-10000000.db
// Claude Code and VS Code give the model only structuredContent (as JSON); other clients the text block.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { openDatabase, type Sqlite } from '../src/db/open.js';
import { loadDemo } from '../src/demo/dataset.js';
import { openSqliteStore } from '../src/db/sqlite/store.js';
import { PACKAGE_ROOT } from '../src/package.js';
import { printTable, type Row } from './stats.js';

/** Claude Code refuses (or spills to a file) one tool answer over this many tokens. */
export const ANSWER_LIMIT = 25_000;
export const LIST_LIMIT = 12_000;
export const TOOL_LIST_LIMIT = 2_000;
export const PAGE_TOKENS_PER_WORD = 2.0;

export const tokens = (text: string): number => countTokens(text);

interface ResultLike {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
}

/** What each kind of client puts in front of the model. */
export function answerTokens(result: ResultLike): { structured: number; content: number } {
  const text = (result.content ?? []).map((c) => (c.type === 'text' ? (c.text ?? '') : JSON.stringify(c))).join('\n');
  return { structured: result.structuredContent === undefined ? 0 : tokens(JSON.stringify(result.structuredContent)), content: tokens(text) };
}

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: unknown;
}

/** tools/list as a model reads it: names, titles, descriptions and input schemas (clients keep output schemas for themselves). */
export function toolListTokens(tools: readonly ListedTool[]): number {
  return tokens(JSON.stringify(tools.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema }))));
}

export type Probe = { kind: 'tool'; name: string; label: string; args: Record<string, unknown> } | { kind: 'resource'; name: string; label: string; uri: string };

/** Every read tool and resource at its default and maximum clamps, on the biggest rows of the database. */
export function probes(sqlite: Sqlite): Probe[] {
  const one = <T>(sql: string): T | undefined => sqlite.prepare(sql).get() as T | undefined;
  const longest = one<{ id: string }>('SELECT meeting_id AS id FROM transcripts ORDER BY word_count DESC, meeting_id LIMIT 1')?.id;
  const richest = one<{ id: string }>(
    `SELECT m.id FROM meetings m ORDER BY length(m.note) + coalesce((SELECT sum(length(content)) FROM summaries s WHERE s.meeting_id = m.id), 0) DESC, m.id LIMIT 1`,
  )?.id;
  const series = one<{ id: string; meeting: string }>('SELECT series_id AS id, min(id) AS meeting FROM meetings WHERE series_id IS NOT NULL GROUP BY series_id ORDER BY count(*) DESC, series_id LIMIT 1');
  const proposal = one<{ id: string }>('SELECT id FROM proposals ORDER BY length(content) + coalesce(length(base_content), 0) DESC, id LIMIT 1')?.id;
  const job = one<{ id: string }>('SELECT id FROM recording_imports ORDER BY id LIMIT 1')?.id;
  const word = one<{ text: string }>(
    "SELECT text FROM transcript_words WHERE transcript_id = (SELECT id FROM transcripts ORDER BY word_count DESC LIMIT 1) AND length(text) > 3 GROUP BY text ORDER BY count(*) DESC LIMIT 1",
  )?.text;
  const tool = (name: string, label: string, args: Record<string, unknown>): Probe => ({ kind: 'tool', name, label, args });
  const resource = (name: string, label: string, uri: string): Probe => ({ kind: 'resource', name, label, uri });
  const out: Probe[] = [
    tool('list_meetings', 'default (20)', {}),
    tool('list_meetings', 'limit 200', { limit: 200 }),
    tool('list_folders', 'default (100)', {}),
    tool('list_folders', 'limit 200', { limit: 200 }),
    tool('list_proposals', 'default (20, all)', { status: 'all' }),
    tool('list_proposals', 'limit 200, all', { status: 'all', limit: 200 }),
  ];
  if (word) out.push(tool('search_transcripts', `"${word}" default (10)`, { query: word }), tool('search_transcripts', `"${word}" limit 50`, { query: word, limit: 50 }));
  for (const id of new Set([richest, longest].filter((x): x is string => !!x))) {
    out.push(tool('get_meeting', id === longest ? 'longest transcript' : 'longest note + summaries', { meeting_id: id }));
    out.push(resource('resource meeting', id === longest ? 'longest transcript' : 'longest note + summaries', `syntheo://meetings/${id}`));
  }
  if (longest) {
    out.push(
      tool('get_meeting_transcript', 'default (200 words)', { meeting_id: longest }),
      tool('get_meeting_transcript', 'limit 500', { meeting_id: longest, limit: 500 }),
      tool('get_meeting_transcript', 'limit 500, word_timings', { meeting_id: longest, limit: 500, word_timings: true }),
      tool('export_meeting', 'longest transcript', { meeting_id: longest }),
      resource('resource transcript', 'default (200 words)', `syntheo://meetings/${longest}/transcript`),
      resource('resource transcript', 'limit 500', `syntheo://meetings/${longest}/transcript?limit=500`),
      resource('resource transcript', 'limit 500, word_timings', `syntheo://meetings/${longest}/transcript?limit=500&word_timings=true`),
    );
  }
  if (richest && richest !== longest) out.push(tool('export_meeting', 'longest note + summaries', { meeting_id: richest }));
  if (series) {
    out.push(
      tool('get_recurring_meeting_history', 'default (20)', { meeting_id: series.meeting }),
      tool('get_recurring_meeting_history', 'limit 200', { meeting_id: series.meeting, limit: 200 }),
      resource('resource series', '100 meetings', `syntheo://series/${series.id}`),
    );
  }
  if (proposal) out.push(tool('get_proposal', 'largest', { proposal_id: proposal }));
  if (job) out.push(tool('get_recording_import', 'first job', { job_id: job }));
  return out;
}

export interface Measured {
  probe: Probe;
  structured: number;
  content: number;
  /** Words on a transcript page (for tokens per word). */
  words?: number;
}

export async function measure(client: Client, list: readonly Probe[]): Promise<Measured[]> {
  const out: Measured[] = [];
  for (const probe of list) {
    if (probe.kind === 'tool') {
      const result = (await client.callTool({ name: probe.name, arguments: probe.args })) as ResultLike & { isError?: boolean };
      if (result.isError) throw new Error(`${probe.name} ${probe.label}: isError ${JSON.stringify(result.content).slice(0, 300)}`);
      const words = (result.structuredContent as { pagination?: { returned: number } } | undefined)?.pagination?.returned;
      out.push({ probe, ...answerTokens(result), ...(probe.name === 'get_meeting_transcript' ? { words } : {}) });
    } else {
      const { contents } = await client.readResource({ uri: probe.uri });
      const text = contents.map((c) => ('text' in c ? c.text : '')).join('\n');
      out.push({ probe, structured: tokens(text), content: tokens(text) });
    }
  }
  return out;
}

/** Reads a whole transcript page by page at `limit`, up to `maxWords` words: total tokens as each kind of client reads them. */
export async function readWhole(client: Client, meetingId: string, limit: number, maxWords = Infinity): Promise<{ words: number; structured: number; content: number; pages: number }> {
  let offset: number | undefined = 0;
  const sum = { words: 0, structured: 0, content: 0, pages: 0 };
  while (offset !== undefined && sum.words < maxWords) {
    const result = (await client.callTool({ name: 'get_meeting_transcript', arguments: { meeting_id: meetingId, offset, limit: Math.min(limit, maxWords - sum.words) } })) as ResultLike;
    const t = answerTokens(result);
    const p = (result.structuredContent as { pagination: { returned: number; next_offset?: number } }).pagination;
    sum.words += p.returned;
    sum.structured += t.structured;
    sum.content += t.content;
    sum.pages++;
    offset = p.next_offset;
  }
  return sum;
}

export async function connect(dbPath: string): Promise<{ client: Client; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js'), 'mcp', '--db', dbPath], stderr: 'ignore' });
  const client = new Client({ name: 'syntheo-bench-tokens', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

const n = (v: number) => v.toLocaleString('en-US');
const perWord = (t: number, w: number) => (w ? (t / w).toFixed(2) : '-');

/** The rows of one database: the worst answer of each tool and resource, tokens per transcript word, the tool list. */
export async function tokenRows(dbPath: string, label: string): Promise<Row[]> {
  const db = openDatabase(dbPath, { create: false });
  const list = probes(db.sqlite);
  const longest = db.sqlite.prepare('SELECT meeting_id AS id, word_count AS n FROM transcripts ORDER BY word_count DESC LIMIT 1').get() as { id: string; n: number } | undefined;
  db.close();
  const { client, close } = await connect(dbPath);
  try {
    const rows: Row[] = [];
    const { tools } = await client.listTools();
    rows.push({ name: `${label}: tools/list (names, titles, descriptions, input schemas)`, value: n(toolListTokens(tools)), detail: `${tools.length} tools; with output schemas ${n(tokens(JSON.stringify(tools)))}`, budget: `<= ${n(TOOL_LIST_LIMIT)}`, ok: toolListTokens(tools) <= TOOL_LIST_LIMIT });
    const measured = await measure(client, list);
    for (const m of measured) {
      const isList = m.probe.kind === 'tool' && /^list_|history/.test(m.probe.name) && /200/.test(m.probe.label);
      const worst = Math.max(m.structured, m.content);
      const limit = isList ? LIST_LIMIT : ANSWER_LIMIT;
      const words = m.words ? `; ${perWord(m.structured, m.words)} / ${perWord(m.content, m.words)} tokens per word (${m.words} words)` : '';
      rows.push({
        name: `${label}: ${m.probe.name} ${m.probe.label}`,
        value: n(m.structured),
        detail: `structuredContent ${n(m.structured)}, text block ${n(m.content)}${words}`,
        budget: `<= ${n(limit)}`,
        ok: worst <= limit,
      });
    }
    if (longest && longest.n >= 10_000) {
      const whole = await readWhole(client, longest.id, 500, 10_000);
      rows.push({ name: `${label}: 10,000 words read at limit 500`, value: n(whole.structured), detail: `${whole.pages} pages; text blocks ${n(whole.content)}; ${perWord(whole.structured, whole.words)} tokens per word`, budget: '<= 22,000', ok: whole.structured <= 22_000 });
    }
    return rows;
  } finally {
    await close();
  }
}

/** Tokens per word of the default page of every demo meeting: real English conversations. */
export async function demoRows(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'syntheo-tokens-'));
  try {
    const path = join(dir, 'demo.db');
    const db = openDatabase(path, { create: true });
    const store = openSqliteStore(path, { create: false });
    await loadDemo(store, Date.parse('2026-11-30T12:00:00Z'));
    await store.close();
    const ids = (db.sqlite.prepare('SELECT meeting_id AS id FROM transcripts ORDER BY word_count DESC').all() as { id: string }[]).map((r) => r.id);
    db.close();
    const { client, close } = await connect(path);
    try {
      const sum = { words: 0, structured: 0, content: 0, plain: 0, worst: 0 };
      for (const id of ids) {
        const result = (await client.callTool({ name: 'get_meeting_transcript', arguments: { meeting_id: id } })) as ResultLike;
        const page = result.structuredContent as { pagination: { returned: number }; text: string };
        const t = answerTokens(result);
        sum.words += page.pagination.returned;
        sum.structured += t.structured;
        sum.content += t.content;
        sum.plain += tokens(page.text.replace(/^\[[\d:]+\] /gm, ''));
        sum.worst = Math.max(sum.worst, t.structured / page.pagination.returned);
      }
      return [
        {
          name: `demo (English): default transcript page, ${ids.length} meetings`,
          value: `${perWord(sum.structured, sum.words)} tokens/word`,
          detail: `structuredContent ${perWord(sum.structured, sum.words)}, text block ${perWord(sum.content, sum.words)}, plain "Speaker: text" ${perWord(sum.plain, sum.words)}; worst meeting ${sum.worst.toFixed(2)}; ${sum.words} words`,
          budget: `<= ${PAGE_TOKENS_PER_WORD.toFixed(1)}`,
          ok: sum.worst <= PAGE_TOKENS_PER_WORD,
        },
      ];
    } finally {
      await close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { db: { type: 'string' }, meetings: { type: 'string' }, words: { type: 'string' } } });
  const big = join(PACKAGE_ROOT, 'bench', '.data', 'bench-100000-10000000.db');
  let dbPath = values.db ?? (existsSync(big) && !values.meetings ? big : undefined);
  if (!dbPath) {
    const meetings = Number(values.meetings ?? 2000);
    const words = Number(values.words ?? 200_000);
    dbPath = join(PACKAGE_ROOT, 'bench', '.data', `bench-${meetings}-${words}.db`);
    if (!existsSync(dbPath)) {
      mkdirSync(dirname(dbPath), { recursive: true });
      const { generate } = await import('./generate.js');
      process.stderr.write(`Generating ${meetings} meetings / ${words} words into ${dbPath}\n`);
      generate({ meetings, words, longest: Math.min(30_000, Math.floor(words / 4)), seed: 1, out: dbPath });
    }
  }
  const rows = [...(await demoRows()), ...(await tokenRows(dbPath, 'bench'))];
  process.stdout.write(`${printTable(`Tokens as the model reads them (o200k) — ${dbPath.split('/').pop()}`, rows)}\n`);
  const over = rows.filter((r) => r.ok === false);
  process.stdout.write(`\n${over.length === 0 ? 'Every budget met.' : `${over.length} budget(s) not met: ${over.map((r) => r.name).join('; ')}`}\n`);
}
