// The filter matrix of issue 19: every filter of list_meetings and search_transcripts alone and
// combined, with rare and common values chosen from the data (the most frequent participant name word,
// the most frequent word, the biggest top-level folder ...), deep offsets; server-side in-process
// (p50 / p99 / max around the query functions the tools call) and a few rows round trip through the
// built `syntheo mcp` over stdio.
//   node dist/bench/matrix.js --db bench/.data/bench-100000-10000000.db [--calls 30] [--json out.json]
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { openDatabase, type Sqlite } from '../src/db/open.js';
import { listMeetings, type MeetingFilter } from '../src/db/queries/meetings.js';
import { searchTranscripts, type SearchFilter } from '../src/db/queries/search.js';
import { PACKAGE_ROOT } from '../src/package.js';
import { median, quantile, type Row } from './stats.js';

const CLI = join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js');

export interface MatrixCase {
  /** What the row asks, with the values the bench chose. */
  name: string;
  tool: 'list_meetings' | 'search_transcripts';
  filter: MeetingFilter | SearchFilter;
  offset: number;
  limit: number;
  /** Also timed round trip through `syntheo mcp`. */
  roundTrip?: boolean;
}

export interface MatrixResult {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  total: number;
  calls: number;
  p50: number;
  p99: number;
  max: number;
  rtP50?: number;
  rtP99?: number;
  rtMax?: number;
}

/** Server-side budgets of issue 19, per row. */
export const BUDGET = { p50: 5, p99: 20, rtP99: 30 };

/** Words of names and text as people type them: runs of letters and digits. */
const wordsOf = (text: string): string[] => text.match(/[\p{L}\p{N}]+/gu) ?? [];

function mostFrequent(counts: Map<string, number>, accept: (key: string) => boolean = () => true): string | undefined {
  let best: string | undefined;
  let n = -1;
  for (const [k, c] of counts) if (accept(k) && (c > n || (c === n && k < best!))) [best, n] = [k, c];
  return best;
}

const count = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** The values of the matrix, read from the database: nothing about the generator is assumed. */
export function chooseCases(sqlite: Sqlite): MatrixCase[] {
  const one = <T>(sql: string, ...args: unknown[]) => sqlite.prepare(sql).get(...args) as T;
  const all = <T>(sql: string, ...args: unknown[]) => sqlite.prepare(sql).all(...args) as T[];
  const total = one<{ n: number }>('SELECT count(*) AS n FROM meetings').n;

  // Participants: the word of a name found in the most meetings (a common first name), and one rare full name.
  const nameWords = new Map<string, number>();
  const fullNames = new Map<string, number>();
  for (const r of all<{ meeting_id: string; names: string }>("SELECT meeting_id, group_concat(name, char(31)) AS names FROM participants GROUP BY meeting_id")) {
    const names = r.names.split('\u001f');
    for (const w of new Set(names.flatMap((n) => wordsOf(n).filter((x) => !/^\d+$/.test(x)).map((x) => x.toLowerCase())))) count(nameWords, w);
    for (const n of new Set(names)) count(fullNames, n);
  }
  const commonPerson = mostFrequent(nameWords) ?? 'a';
  let rarePerson = 'nobody';
  let rareN = Infinity;
  for (const [name, n] of fullNames) if (n < rareN || (n === rareN && name < rarePerson)) [rarePerson, rareN] = [name, n];

  // Words of what was said, from a sample of passages spread over the whole index.
  const passages = one<{ lo: number; hi: number }>("SELECT min(id) AS lo, max(id) AS hi FROM search_passages WHERE kind = 'transcript'");
  const step = Math.max(1, Math.floor((passages.hi - passages.lo) / 4000));
  const said = new Map<string, number>();
  const pairs = new Map<string, number>();
  for (const r of all<{ text: string }>("SELECT text FROM search_passages WHERE id >= ? AND (id - ?) % ? = 0 AND kind = 'transcript' LIMIT 4000", passages.lo, passages.lo, step)) {
    const w = wordsOf(r.text.toLowerCase());
    for (const x of new Set(w)) count(said, x);
    for (let i = 1; i < w.length; i++) count(pairs, `${w[i - 1]} ${w[i]}`);
  }
  const commonWord = mostFrequent(said, (w) => w.length >= 3) ?? 'the';
  const oneChar = mostFrequent(said, (w) => w.length === 1);
  const twoChars = mostFrequent(said, (w) => w.length === 2);
  const commonPhrase = mostFrequent(pairs) ?? `${commonWord} ${commonWord}`;
  // Rare: seen once in the sample, longest first (rarer in a Zipf vocabulary), with few matches in all.
  const rareCandidates = [...said].filter(([w, n]) => n === 1 && w.length >= 6).map(([w]) => w).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const ftsCount = (q: string) => one<{ n: number }>('SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH ?', `"${q}"`).n;
  const rareWord = rareCandidates.find((w) => ftsCount(w) <= 200) ?? rareCandidates[0] ?? commonWord;
  const rarePhrase = [...pairs].filter(([p, n]) => n === 1 && p.split(' ').every((w) => w.length >= 5)).map(([p]) => p).sort()[0] ?? rareWord;

  // Titles: the most frequent 1 and 2 characters and 3+ letter word, and one meeting's whole title.
  const letters = new Map<string, number>();
  const bigrams = new Map<string, number>();
  const titleWords = new Map<string, number>();
  for (const r of all<{ title: string }>('SELECT title FROM meetings WHERE rowid % 50 = 0')) {
    const t = r.title.toLowerCase();
    for (const ch of new Set(t.replace(/[^\p{L}]/gu, ''))) count(letters, ch);
    for (const bg of new Set(Array.from({ length: Math.max(0, t.length - 1) }, (_, i) => t.slice(i, i + 2)).filter((x) => /^\p{L}{2}$/u.test(x)))) count(bigrams, bg);
    for (const w of new Set(wordsOf(t).filter((x) => x.length >= 3 && !/^\d+$/.test(x)))) count(titleWords, w);
  }
  const rareTitle = one<{ title: string }>('SELECT title FROM meetings ORDER BY started_at LIMIT 1 OFFSET ?', Math.floor(total / 3))?.title ?? 'x';

  // Folders: the top-level folder holding the most meetings (subfolders included), and the smallest non-empty leaf.
  const folders = all<{ path: string; meeting_count: number }>('SELECT path, meeting_count FROM folders');
  const tops = new Map<string, number>();
  for (const f of folders) tops.set(f.path.split('/')[0]!, (tops.get(f.path.split('/')[0]!) ?? 0) + f.meeting_count);
  const bigFolder = mostFrequent(tops);
  const leaves = folders.filter((f) => f.meeting_count > 0 && !folders.some((g) => g.path.startsWith(`${f.path}/`))).sort((a, b) => a.meeting_count - b.meeting_count || (a.path < b.path ? -1 : 1));
  const smallFolder = leaves[0]?.path;
  const series = one<{ series_id: string } | undefined>('SELECT series_id FROM meetings WHERE series_id IS NOT NULL GROUP BY series_id ORDER BY count(*) DESC, series_id LIMIT 1')?.series_id;

  // Dates: the last six months of the data, and its last day (bare dates: whole UTC days).
  const newest = one<{ d: string | null }>('SELECT max(started_at) AS d FROM meetings').d ?? '2026-11-30T00:00:00.000Z';
  const day = newest.slice(0, 10);
  const sixMonthsBefore = new Date(Date.parse(day) - 182 * 86_400_000).toISOString().slice(0, 10);
  const six = { from: sixMonthsBefore, to: day };

  const cases: MatrixCase[] = [];
  const L = (name: string, filter: MeetingFilter, offset = 0, roundTrip = false) => cases.push({ name, tool: 'list_meetings', filter, offset, limit: 20, roundTrip });
  const S = (name: string, filter: SearchFilter, offset = 0, roundTrip = false) => cases.push({ name, tool: 'search_transcripts', filter, offset, limit: 10, roundTrip });

  L('default', {}, 0, true);
  L(`offset ${total - 100} (deep)`, {}, Math.max(0, total - 100), true);
  const letter = mostFrequent(letters);
  const bigram = mostFrequent(bigrams);
  if (letter) L(`query "${letter}" (1 char)`, { query: letter });
  if (bigram) L(`query "${bigram}" (2 chars)`, { query: bigram });
  L(`query "${mostFrequent(titleWords)}" (common word)`, { query: mostFrequent(titleWords) }, 0, true);
  L(`query "${rareTitle}" (one title)`, { query: rareTitle });
  L(`participant "${commonPerson}" (most frequent)`, { participant: commonPerson }, 0, true);
  L(`participant "${rarePerson}" (rare)`, { participant: rarePerson });
  L(`participant "${commonPerson.slice(0, 2)}" (2 chars)`, { participant: commonPerson.slice(0, 2) });
  if (bigFolder) L(`folder "${bigFolder}" (biggest top-level)`, { folderPath: bigFolder }, 0, true);
  if (smallFolder) L(`folder "${smallFolder}" (smallest leaf)`, { folderPath: smallFolder });
  if (series) L('series (largest)', { seriesId: series });
  L(`from/to six months`, six);
  L(`from/to one day`, { from: day, to: day });
  if (bigFolder) L(`participant common + folder`, { participant: commonPerson, folderPath: bigFolder });
  L(`participant common + six months`, { participant: commonPerson, ...six });
  if (bigFolder) L(`participant common + folder + six months + query`, { participant: commonPerson, folderPath: bigFolder, ...six, query: mostFrequent(titleWords) });
  if (series) L('series + participant common', { seriesId: series, participant: commonPerson });
  if (bigFolder) L(`folder, offset 5000 (deep)`, { folderPath: bigFolder }, 5000);
  L(`participant common, offset 20000 (deep)`, { participant: commonPerson }, 20000);

  S(`rare word "${rareWord}"`, { query: rareWord });
  S(`rare phrase "${rarePhrase}"`, { query: rarePhrase });
  S(`common word "${commonWord}"`, { query: commonWord }, 0, true);
  if (oneChar) S(`1-char word "${oneChar}"`, { query: oneChar });
  if (twoChars) S(`2-char word "${twoChars}"`, { query: twoChars });
  S(`common phrase "${commonPhrase}"`, { query: commonPhrase });
  if (bigFolder) S(`common + folder (biggest)`, { query: commonWord, folderPath: bigFolder }, 0, true);
  if (smallFolder) S(`common + folder (smallest leaf)`, { query: commonWord, folderPath: smallFolder });
  if (series) S('common + series', { query: commonWord, seriesId: series });
  S('common + six months', { query: commonWord, ...six }, 0, true);
  S('common + one day', { query: commonWord, from: day, to: day });
  S(`common + participant common`, { query: commonWord, participant: commonPerson }, 0, true);
  S(`common + participant rare`, { query: commonWord, participant: rarePerson });
  S(`rare + participant common`, { query: rareWord, participant: commonPerson });
  if (bigFolder) S('common + folder + six months + participant', { query: commonWord, folderPath: bigFolder, participant: commonPerson, ...six });
  S('common phrase + participant common', { query: commonPhrase, participant: commonPerson });
  S('common, offset 5000 (deep)', { query: commonWord }, 5000);
  if (bigFolder) S('common + folder, offset 2000', { query: commonWord, folderPath: bigFolder }, 2000);
  return cases;
}

function run(sqlite: Sqlite, c: MatrixCase): number {
  const page = { limit: c.limit, offset: c.offset };
  // JSON included: the tool serialises the answer too.
  const r = c.tool === 'list_meetings' ? listMeetings(sqlite, c.filter, page) : searchTranscripts(sqlite, c.filter as SearchFilter, page);
  JSON.stringify(r);
  return r.pagination.total;
}

/** Tool arguments of a case, as an MCP client sends them. */
function toolArgs(c: MatrixCase): Record<string, unknown> {
  const f = c.filter as SearchFilter;
  const a: Record<string, unknown> = { limit: c.limit, offset: c.offset };
  if (f.query !== undefined) a.query = f.query;
  if (f.folderPath !== undefined) a.folder_path = f.folderPath;
  if (f.seriesId !== undefined) a.series_id = f.seriesId;
  if (f.from !== undefined) a.from = f.from;
  if (f.to !== undefined) a.to = f.to;
  if (f.participant !== undefined) a.participant = f.participant;
  return a;
}

/** `calls` timed calls per row (fewer when a row is slow: at most ~`budgetMs` per row), after two warm-ups. */
export async function benchMatrix(options: { db: string; calls: number; roundTrip?: boolean; budgetMs?: number; rows?: RegExp; log?: (line: string) => void }): Promise<MatrixResult[]> {
  const log = options.log ?? (() => {});
  const db = openDatabase(options.db, { create: false });
  const results: MatrixResult[] = [];
  try {
    const cases = chooseCases(db.sqlite).filter((c) => !options.rows || options.rows.test(`${c.tool} ${c.name}`));
    for (const c of cases) {
      const total = run(db.sqlite, c);
      run(db.sqlite, c);
      const times: number[] = [];
      const started = performance.now();
      while (times.length < options.calls && (times.length < 5 || performance.now() - started < (options.budgetMs ?? 4000))) {
        const t0 = performance.now();
        run(db.sqlite, c);
        times.push(performance.now() - t0);
      }
      results.push({ name: c.name, tool: c.tool, args: toolArgs(c), total, calls: times.length, p50: median(times), p99: quantile(times, 0.99), max: Math.max(...times) });
      log(`${c.tool} ${c.name}: p50 ${median(times).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms (total ${total})`);
    }
    if (options.roundTrip !== false) {
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--db', options.db], stderr: 'ignore', cwd: PACKAGE_ROOT });
      const client = new Client({ name: 'syntheo-bench-matrix', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(transport);
      try {
        for (const [i, c] of cases.entries()) {
          if (!c.roundTrip) continue;
          const call = async () => {
            const r = (await client.callTool({ name: c.tool, arguments: toolArgs(c) })) as { isError?: boolean };
            if (r.isError) throw new Error(`${c.tool} failed: ${JSON.stringify(r)}`);
          };
          await call();
          await call();
          const times: number[] = [];
          const started = performance.now();
          while (times.length < options.calls && (times.length < 5 || performance.now() - started < (options.budgetMs ?? 4000))) {
            const t0 = performance.now();
            await call();
            times.push(performance.now() - t0);
          }
          Object.assign(results[i]!, { rtP50: median(times), rtP99: quantile(times, 0.99), rtMax: Math.max(...times) });
          log(`round trip ${c.tool} ${c.name}: p50 ${median(times).toFixed(2)} ms`);
        }
      } finally {
        await client.close();
      }
    }
  } finally {
    db.close();
  }
  return results;
}

/** One row per case for `npm run bench`'s table; over budget when p50 >= 5 ms, p99 >= 20 ms or round trip p99 >= 30 ms. */
export function matrixRows(results: MatrixResult[]): Row[] {
  return results.map((r) => {
    const rt = r.rtP99 === undefined ? '' : `; round trip p50 ${r.rtP50!.toFixed(2)} / p99 ${r.rtP99.toFixed(2)} ms`;
    const ok = r.p50 < BUDGET.p50 && r.p99 < BUDGET.p99 && (r.rtP99 === undefined || r.rtP99 < BUDGET.rtP99);
    return {
      name: `${r.tool} ${r.name}`,
      value: `${r.p50.toFixed(2)} ms`,
      detail: `p99 ${r.p99.toFixed(2)}, max ${r.max.toFixed(2)} ms; total ${r.total}; n=${r.calls}${rt}`,
      budget: 'p50 < 5, p99 < 20 ms (rt p99 < 30)',
      ok,
    };
  });
}

/** The matrix as a Markdown table (bench/README.md). */
export function matrixMarkdown(results: MatrixResult[]): string {
  const f = (v: number | undefined) => (v === undefined ? '' : v.toFixed(2));
  const lines = ['| tool | row | total | p50 ms | p99 ms | max ms | round trip p50 / p99 ms |', '|-|-|-:|-:|-:|-:|-:|'];
  for (const r of results) lines.push(`| ${r.tool} | ${r.name.replace(/\|/g, '\\|')} | ${r.total} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} | ${r.rtP50 === undefined ? '' : `${f(r.rtP50)} / ${f(r.rtP99)}`} |`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { benchArgs } = await import('./args.js');
  const { writeFileSync } = await import('node:fs');
  const values = benchArgs('matrix', 'Time every filter of list_meetings and search_transcripts, alone and combined, on an existing database (issue 19).', {
    db: { type: 'string', value: 'FILE', default: 'bench/.data/bench-100000-10000000.db', description: 'Database (generate it with generate.js)' },
    calls: { type: 'string', value: 'N', default: '30', description: 'Timed calls per row (fewer for rows slower than ~4 s in all)' },
    'no-round-trip': { type: 'boolean', default: false, description: 'Skip the rows timed through syntheo mcp' },
    json: { type: 'string', value: 'FILE', description: 'Also write the results as JSON' },
    rows: { type: 'string', value: 'REGEX', description: 'Only the rows whose "tool row" matches' },
  });
  const results = await benchMatrix({ db: values.db!, calls: Number(values.calls), roundTrip: !values['no-round-trip'], ...(values.rows ? { rows: new RegExp(values.rows) } : {}), log: (l) => process.stderr.write(`${l}\n`) });
  if (values.json) writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${matrixMarkdown(results)}\n`);
}
