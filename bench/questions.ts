// Random questions timed (issue 19): searches and lists drawn from the database's own words, folders, series, names and
// dates (bench/questions-drawn.ts, as the random tests draw them), each timed on SQLite and, with a URL, on PostgreSQL,
// call by call, their answers compared. The matrix asks fixed rows; these reach the combinations it does not name (a
// middling word over a few weeks was found so).
//   node dist/bench/questions.js --db bench/.data/bench-100000-10000000.db [--url postgresql://...] [--count 300] [--seed 11]
import { openStore } from '../src/db/engine.js';
import type { MeetingFilter } from '../src/db/queries/meetings.js';
import type { SearchFilter } from '../src/db/queries/search.js';
import { drawer, vocabulary } from './questions-drawn.js';
import { mismatch, run } from './matrix.js';
import { median, quantile } from './stats.js';

export interface Question {
  tool: 'search_transcripts' | 'list_meetings';
  filter: SearchFilter | MeetingFilter;
  offset: number;
}

export interface QuestionTiming {
  question: Question;
  /** Median of the timed calls, per engine (ms). */
  sqlite: number;
  postgres?: number;
  /** How PostgreSQL's answer differs from SQLite's (the total; a list's page too). */
  mismatch?: string;
}

/** Whose p50 is over this (ms) is counted, as the matrix's budget. */
const OVER_MS = 5;
const LIMIT = 10;

/** `count` searches, and as many lists with `lists`, drawn from `db` with `seed`. */
export function drawQuestions(db: string, count: number, seed: number, lists: boolean): Question[] {
  const d = drawer(vocabulary(db), seed);
  const out: Question[] = [];
  for (let i = 0; i < count; i++) {
    out.push({ tool: 'search_transcripts', ...d.search() });
    if (lists) out.push({ tool: 'list_meetings', ...d.list() });
  }
  return out;
}

/**
 * Each question asked once on each engine, then `calls` times more, the engines in turn (which goes first alternating
 * call by call: the second of a pair finds the machine's caches warmer); its median per engine.
 */
export async function timeQuestions(options: { db: string; url?: string; questions: Question[]; calls: number }): Promise<QuestionTiming[]> {
  const lite = await openStore(options.db, { create: false });
  const pg = options.url ? await openStore(options.url, { create: false }) : undefined;
  const stores = pg ? [lite, pg] : [lite];
  try {
    const timed: QuestionTiming[] = [];
    for (const question of options.questions) {
      const asked = { ...question, limit: LIMIT };
      const answers = [];
      for (const store of stores) answers.push(await run(store, asked));
      const times: number[][] = stores.map(() => []);
      for (let i = 0; i < options.calls; i++)
        for (const j of i % 2 ? [...stores.keys()].reverse() : stores.keys()) {
          const t0 = performance.now();
          await run(stores[j]!, asked);
          times[j]!.push(performance.now() - t0);
        }
      const differs = pg ? mismatch(question.tool, answers[0]!, answers[1]!) : undefined;
      timed.push({ question, sqlite: median(times[0]!), ...(pg && { postgres: median(times[1]!) }), ...(differs && { mismatch: differs }) });
    }
    return timed;
  } finally {
    await lite.close();
    await pg?.close();
  }
}

/** Per engine and tool: p50, p90, p99 of the questions' medians, how many over OVER_MS; then the slowest, and any mismatch. */
export function questionsReport(timed: QuestionTiming[], slowest = 10): string {
  const f = (n: number) => n.toFixed(2);
  const lines = ['| engine | tool | questions | p50 ms | p90 ms | p99 ms | over 5 ms |', '|-|-|-:|-:|-:|-:|-:|'];
  for (const engine of ['sqlite', 'postgres'] as const)
    for (const tool of ['search_transcripts', 'list_meetings'] as const) {
      const ms = timed.filter((t) => t.question.tool === tool && t[engine] !== undefined).map((t) => t[engine]!);
      if (ms.length === 0) continue;
      lines.push(`| ${engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'} | ${tool} | ${ms.length} | ${f(quantile(ms, 0.5))} | ${f(quantile(ms, 0.9))} | ${f(quantile(ms, 0.99))} | ${ms.filter((m) => m > OVER_MS).length} |`);
    }
  const worst = (t: QuestionTiming) => Math.max(t.sqlite, t.postgres ?? 0);
  lines.push('', `Slowest ${slowest} (ms, SQLite / PostgreSQL):`);
  for (const t of [...timed].sort((a, b) => worst(b) - worst(a)).slice(0, slowest))
    lines.push(`- ${f(t.sqlite)}${t.postgres === undefined ? '' : ` / ${f(t.postgres)}`}  ${t.question.tool} ${JSON.stringify(t.question.filter)}${t.question.offset ? ` at offset ${t.question.offset}` : ''}`);
  const wrong = timed.filter((t) => t.mismatch);
  const compared = timed.some((t) => t.postgres !== undefined);
  lines.push('', wrong.length ? `MISMATCH in ${wrong.length}:` : compared ? 'Every answer the same on both engines.' : 'SQLite alone: no answers compared (--url adds PostgreSQL).');
  for (const t of wrong) lines.push(`- ${t.mismatch}: ${t.question.tool} ${JSON.stringify(t.question.filter)} at offset ${t.question.offset}`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { benchArgs, benchDatabase } = await import('./args.js');
  const values = benchArgs('questions', 'Time random searches (and lists) drawn from an existing database, on SQLite and PostgreSQL side by side (issue 19).', {
    db: { type: 'string', value: 'FILE', default: 'bench/.data/bench-100000-10000000.db', description: 'Database the questions are drawn from and asked of (generate it with generate.js)' },
    url: { type: 'string', value: 'URL', description: 'Also a PostgreSQL database holding the same data (matrix.js --url fills it)' },
    count: { type: 'string', value: 'N', default: '300', description: 'Searches drawn' },
    seed: { type: 'string', value: 'N', default: '11', description: 'Seed of the draw: the same seed draws the same questions' },
    calls: { type: 'string', value: 'N', default: '3', description: 'Timed calls of each question per engine, after one untimed' },
    lists: { type: 'boolean', default: false, description: 'Also as many lists (list_meetings)' },
  });
  benchDatabase('questions', values.db!);
  const questions = drawQuestions(values.db!, Number(values.count), Number(values.seed), values.lists);
  const timed = await timeQuestions({ db: values.db!, ...(values.url ? { url: values.url } : {}), questions, calls: Math.max(1, Number(values.calls)) });
  process.stdout.write(`${questionsReport(timed)}\n`);
  if (timed.some((t) => t.mismatch)) process.exitCode = 1;
}
