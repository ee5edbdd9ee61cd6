// `syntheo mcp` over stdio with the SDK's own client, against a baseline server on the same SDK whose
// one tool does nothing, in the same run: per-tool and per-resource p50/p99 and ratios, start-up, and
// the server-side budgets (list_meetings query, export of the longest transcript).
//   node dist/bench/mcp.js --db bench/.data/large.db [--calls 1000]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { openDatabase, type Sqlite } from '../src/db/open.js';
import { PACKAGE_ROOT } from '../src/package.js';
import { median, ms, quantile, type Row } from './stats.js';

const CLI = join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js');
const BASELINE = join(PACKAGE_ROOT, 'bench', 'mcp-baseline-server.mjs');

type Args = Record<string, unknown>;
type Call = { kind: 'tool'; name: string; args: Args } | { kind: 'resource'; uri: string } | { kind: 'list'; cursor: string };

interface Workload {
  name: string;
  /** Read tools and resources are held to the 1.5x budget. */
  read: boolean;
  calls: (i: number) => Call;
  count?: number;
}

const tool = (name: string, args: Args): Call => ({ kind: 'tool', name, args });

/** Argument sets drawn from the database itself, so calls hit real rows: varied ids, deep offsets, folders. */
function workloads(sqlite: Sqlite, calls: number): { list: Workload[]; longest: { meetingId: string; words: number } } {
  const pick = <T>(rows: T[], i: number): T => rows[(i * 7919) % rows.length]!;
  const meetings = (sqlite.prepare('SELECT id FROM meetings ORDER BY id LIMIT 500').all() as { id: string }[]).map((r) => r.id);
  const inSeries = (sqlite.prepare('SELECT id FROM meetings WHERE series_id IS NOT NULL ORDER BY id LIMIT 200').all() as { id: string }[]).map((r) => r.id);
  const series = (sqlite.prepare('SELECT id FROM series ORDER BY id LIMIT 100').all() as { id: string }[]).map((r) => r.id);
  const folders = (sqlite.prepare('SELECT path FROM folders ORDER BY path').all() as { path: string }[]).map((r) => r.path);
  const total = (sqlite.prepare('SELECT count(*) AS n FROM meetings').get() as { n: number }).n;
  const longest = sqlite.prepare('SELECT meeting_id AS meetingId, word_count AS words FROM transcripts ORDER BY word_count DESC LIMIT 1').get() as { meetingId: string; words: number };
  const transcribed = (sqlite.prepare('SELECT meeting_id AS id, word_count AS n FROM transcripts ORDER BY id LIMIT 300').all() as { id: string; n: number }[]);
  // Title fragments of various selectivity: a number suffix, a word pair, a rarer word.
  const titles = (sqlite.prepare('SELECT title FROM meetings ORDER BY id LIMIT 300').all() as { title: string }[]).map((r) => r.title);
  const fragments = titles.map((t, i) => (i % 3 === 0 ? t.slice(t.indexOf('#')) : i % 3 === 1 ? t.split(' ').slice(0, 2).join(' ') : t.split(' ').slice(1, 3).join(' ')));
  // Search words: mid-frequency words of real transcripts (a person searches for a topic, not "the").
  const words = (sqlite.prepare("SELECT text FROM transcript_words WHERE transcript_id = (SELECT id FROM transcripts ORDER BY id LIMIT 1 OFFSET 3) AND length(text) > 6 LIMIT 200").all() as { text: string }[]).map((r) => r.text);
  const proposals = (sqlite.prepare("SELECT id FROM proposals ORDER BY id LIMIT 200").all() as { id: string }[]).map((r) => r.id);
  const jobs = (sqlite.prepare('SELECT id FROM recording_imports ORDER BY id LIMIT 200').all() as { id: string }[]).map((r) => r.id);

  const list: Workload[] = [
    {
      name: 'list_meetings (mixed: default, deep offsets, folders, limit 200)',
      read: true,
      calls: (i) =>
        [
          tool('list_meetings', {}),
          tool('list_meetings', { offset: (i * 104729) % total }),
          tool('list_meetings', { folder_path: pick(folders, i) }),
          tool('list_meetings', { limit: 200, offset: (i * 31) % 1000 }),
          tool('list_meetings', { series_id: pick(series, i) }),
        ][i % 5]!,
    },
    { name: 'list_meetings query fragment', read: true, calls: (i) => tool('list_meetings', { query: pick(fragments, i) }) },
    { name: 'list_folders', read: true, calls: (i) => tool('list_folders', i % 2 ? { query: pick(folders, i).split('/')[0]!.slice(0, 4) } : {}) },
    { name: 'get_meeting', read: true, calls: (i) => tool('get_meeting', { meeting_id: pick(meetings, i) }) },
    {
      name: 'get_meeting_transcript (varied meetings and offsets)',
      read: true,
      calls: (i) => {
        const t = pick(transcribed, i);
        return tool('get_meeting_transcript', { meeting_id: t.id, offset: (i * 131) % Math.max(1, t.n), limit: 200 });
      },
    },
    { name: 'get_meeting_transcript longest, offset 0', read: true, calls: () => tool('get_meeting_transcript', { meeting_id: longest.meetingId, offset: 0 }) },
    { name: 'get_meeting_transcript longest, near the end', read: true, calls: () => tool('get_meeting_transcript', { meeting_id: longest.meetingId, offset: longest.words - 200 }) },
    { name: 'get_recurring_meeting_history', read: true, calls: (i) => tool('get_recurring_meeting_history', { meeting_id: pick(inSeries, i), offset: i % 3 ? 0 : 20 }) },
    { name: 'export_meeting (varied)', read: true, calls: (i) => tool('export_meeting', { meeting_id: pick(meetings, i) }) },
    { name: `export_meeting longest (${longest.words} words)`, read: false, calls: () => tool('export_meeting', { meeting_id: longest.meetingId }), count: Math.min(calls, 100) },
    { name: 'list_proposals', read: true, calls: (i) => tool('list_proposals', i % 2 ? { status: 'all' } : { meeting_id: pick(meetings, i), status: 'all' }) },
    { name: 'get_proposal', read: true, calls: (i) => tool('get_proposal', { proposal_id: pick(proposals, i) }) },
    { name: 'get_recording_import', read: true, calls: (i) => tool('get_recording_import', { job_id: pick(jobs, i) }) },
    { name: 'search_transcripts', read: true, calls: (i) => tool('search_transcripts', i % 4 === 3 ? { query: pick(words, i), folder_path: pick(folders, i) } : { query: pick(words, i) }) },
    { name: 'resource syntheo://meetings/{id}', read: true, calls: (i) => ({ kind: 'resource', uri: `syntheo://meetings/${pick(meetings, i)}` }) },
    {
      name: 'resource .../transcript{?offset,limit}',
      read: true,
      calls: (i) => {
        const t = pick(transcribed, i);
        return { kind: 'resource', uri: `syntheo://meetings/${t.id}/transcript?offset=${(i * 97) % Math.max(1, t.n)}` };
      },
    },
    { name: 'resource syntheo://series/{id}', read: true, calls: (i) => ({ kind: 'resource', uri: `syntheo://series/${pick(series, i)}` }) },
    { name: 'resources/list (pages of 20)', read: true, calls: (i) => ({ kind: 'list', cursor: String(((i * 20) % Math.max(20, total - 20))) }) },
    { name: 'propose_memo_edit (write)', read: false, calls: (i) => tool('propose_memo_edit', { meeting_id: pick(meetings, i), content: `Bench note ${i}\n` }) },
  ];
  return { list, longest };
}

interface Connection {
  client: Client;
  /** CPU time the server process has used so far (user + system, ms; /proc, Linux). */
  cpu(): number;
  close(): Promise<void>;
}

async function connect(args: string[], env: Record<string, string> = {}): Promise<Connection> {
  const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'ignore', cwd: PACKAGE_ROOT, env: { ...(process.env as Record<string, string>), ...env } });
  const client = new Client({ name: 'syntheo-bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  const pid = transport.pid!;
  return { client, cpu: () => cpuMs(pid), close: () => client.close() };
}

function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

async function run(client: Client, call: Call): Promise<void> {
  if (call.kind === 'tool') {
    const result = (await client.callTool({ name: call.name, arguments: call.args })) as { isError?: boolean };
    if (result.isError) throw new Error(`${call.name} failed: ${JSON.stringify(result)}`);
  } else if (call.kind === 'resource') await client.readResource({ uri: call.uri });
  // With a cursor the v2 client fetches one page (without one it walks them all).
  else await client.listResources({ cursor: call.cursor });
}

/**
 * Times `count` calls, each right after a baseline no-op call on the other server: both see the same
 * machine load at the same moment, so the ratio holds even when the machine is busy.
 */
async function measure(
  server: Connection,
  baseline: Connection,
  calls: (i: number) => Call,
  count: number,
): Promise<{ ours: number[]; base: number[]; ourCpu: number; baseCpu: number }> {
  for (let i = 0; i < Math.min(20, count); i++) await run(server.client, calls(i)); // warm-up: module loads, first open
  const ours: number[] = [];
  const base: number[] = [];
  const noop = tool('noop', {});
  const cpu0 = [server.cpu(), baseline.cpu()];
  for (let i = 0; i < count; i++) {
    const c = calls(i);
    let t0 = performance.now();
    await run(baseline.client, noop);
    base.push(performance.now() - t0);
    t0 = performance.now();
    await run(server.client, c);
    ours.push(performance.now() - t0);
  }
  return { ours, base, ourCpu: (server.cpu() - cpu0[0]!) / count, baseCpu: (baseline.cpu() - cpu0[1]!) / count };
}

/**
 * The payload's own cost: one of our answers, stored and served verbatim by the baseline server (no
 * database, no query), timed the same way. What a tool costs beyond it is Syntheo's work.
 */
async function payloadFloor(syntheo: Client, canned: Connection, baseline: Connection, call: Call, file: string, count: number): Promise<{ p50: number; kb: string }> {
  if (call.kind !== 'tool') throw new Error('tools only');
  const result = await syntheo.callTool({ name: call.name, arguments: call.args });
  writeFileSync(file, JSON.stringify(result));
  await canned.client.callTool({ name: 'canned_load', arguments: {} });
  const { ours } = await measure(canned, baseline, () => tool('canned', {}), count);
  return { p50: median(ours), kb: (Buffer.byteLength(JSON.stringify(result)) / 1024).toFixed(1) };
}

const clientInfo = { name: 'bench', version: '1' };
/** What a legacy client sends first, and the probe a modern (2026-07-28) client spawns a process for. */
const FIRST_MESSAGES = {
  initialize: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo } },
  'server/discover': {
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': clientInfo, 'io.modelcontextprotocol/clientCapabilities': {} } },
  },
} as const;

/** spawn -> first response: medians over `runs`, the two servers alternating. */
async function startupPair(ours: string[], baseline: string[], first: keyof typeof FIRST_MESSAGES, runs: number): Promise<{ ours: number; base: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(await firstResponse(ours, FIRST_MESSAGES[first]));
    b.push(await firstResponse(baseline, FIRST_MESSAGES[first]));
  }
  return { ours: median(a), base: median(b) };
}

async function firstResponse(args: string[], message: object): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'ignore'], cwd: PACKAGE_ROOT });
  const answer = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(d.toString()));
    child.once('error', reject);
    child.stdin.write(`${JSON.stringify(message)}\n`);
  });
  const elapsed = performance.now() - t0;
  if (answer.includes('"error"')) throw new Error(`start-up probe failed: ${answer.slice(0, 200)}`);
  child.stdin.end();
  await new Promise((r) => child.once('exit', r));
  return elapsed;
}

/** Adds what the benchmark reads but a generated database lacks: pending proposals and import jobs. */
function seedWrites(sqlite: Sqlite): void {
  const have = (sqlite.prepare('SELECT count(*) AS n FROM proposals').get() as { n: number }).n;
  if (have >= 200) return;
  const meetings = (sqlite.prepare('SELECT id, note FROM meetings ORDER BY id LIMIT 200').all() as { id: string; note: string }[]);
  const now = new Date().toISOString();
  sqlite.transaction(() => {
    meetings.forEach((m, i) => {
      sqlite.prepare("INSERT INTO proposals (id, meeting_id, kind, target_id, content, base_content, status, proposed_by, created_at) VALUES (?, ?, 'memo', NULL, ?, ?, 'pending', 'bench', ?)").run(`prp_bench${String(i).padStart(7, '0')}`, m.id, `${m.note}\nBench addition ${i}\n`, m.note, now);
      sqlite.prepare("INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, status, summary_status, created_at, updated_at) VALUES (?, ?, '/tmp/bench.wav', 1, 0, 'wav', 'done', 'done', ?, ?)").run(`job_bench${String(i).padStart(7, '0')}`, m.id, now, now);
    });
  })();
}

export interface McpBenchResult {
  rows: Row[];
  baselineP50: number;
}

export async function benchMcp(options: { db: string; calls: number; startupRuns: number }): Promise<McpBenchResult> {
  const db = openDatabase(options.db, { create: false });
  seedWrites(db.sqlite);
  const { list, longest } = workloads(db.sqlite, options.calls);
  const serverSide = await serverSideBudgets(db.sqlite, longest.meetingId, options.calls);
  db.close();

  const rows: Row[] = [];
  const baseline = await connect([BASELINE]);
  const syntheo = await connect([CLI, 'mcp', '--db', options.db]);
  const scratch = mkdtempSync(join(tmpdir(), 'syntheo-bench-'));
  const cannedFile = join(scratch, 'canned.json');
  const canned = await connect([BASELINE], { SYNTHEO_BENCH_CANNED: cannedFile });
  const p50s = new Map<string, number>();
  const allBase: number[] = [];
  for (const w of list) {
    const count = w.count ?? options.calls;
    const { ours, base, ourCpu, baseCpu } = await measure(syntheo, baseline, w.calls, count);
    allBase.push(...base);
    const p50 = median(ours);
    p50s.set(w.name, p50);
    const ratio = p50 / median(base);
    const floor = w.calls(0).kind === 'tool' ? await payloadFloor(syntheo.client, canned, baseline, w.calls(0), cannedFile, Math.min(count, 300)) : undefined;
    rows.push({
      name: w.name,
      value: ms(p50),
      detail: `p99 ${ms(quantile(ours, 0.99))}, ${ratio.toFixed(2)}x baseline (${ms(median(base))}); server CPU ${ms(ourCpu)}/call vs ${ms(baseCpu)}${floor ? `; ${(p50 / floor.p50).toFixed(2)}x the same ${floor.kb} KB answered from memory (${ms(floor.p50)})` : ''}; n=${ours.length}`,
      ...(w.read ? { budget: '<= 1.5x baseline', ok: ratio <= 1.5 } : {}),
    });
  }
  rmSync(scratch, { recursive: true, force: true });
  await canned.close();
  await syntheo.close();
  await baseline.close();
  const baselineP50 = median(allBase);
  rows.unshift({ name: 'baseline no-op tool (same SDK, serveStdio)', value: ms(baselineP50), detail: `p99 ${ms(quantile(allBase, 0.99))}, interleaved with every call below` });

  const start = p50s.get('get_meeting_transcript longest, offset 0')!;
  const end = p50s.get('get_meeting_transcript longest, near the end')!;
  const sideRatio = serverSide.transcriptEnd / serverSide.transcriptStart;
  rows.push({
    name: 'transcript near the end / offset 0 (server-side)',
    value: `${sideRatio.toFixed(2)}x`,
    detail: `${ms(serverSide.transcriptEnd, 3)} vs ${ms(serverSide.transcriptStart, 3)}; round trip ${(end / start).toFixed(2)}x (the pages differ in size)`,
    budget: '<= 1.2x',
    ok: sideRatio <= 1.2,
  });
  rows.push(...serverSide.rows);

  for (const first of Object.keys(FIRST_MESSAGES) as (keyof typeof FIRST_MESSAGES)[]) {
    const { ours, base } = await startupPair([CLI, 'mcp', '--db', options.db], [BASELINE], first, options.startupRuns);
    rows.push({ name: `start-up: spawn -> ${first} answered`, value: ms(ours, 1), detail: `baseline ${ms(base, 1)}, ${(ours / base).toFixed(2)}x`, budget: '<= 1.2x baseline', ok: ours / base <= 1.2 });
  }
  return { rows, baselineP50 };
}

/** The budgets stated server-side: timed in-process around the same query functions the tools call (JSON included). */
async function serverSideBudgets(sqlite: Sqlite, longestMeetingId: string, calls: number): Promise<{ rows: Row[]; transcriptStart: number; transcriptEnd: number }> {
  const { listMeetings } = await import('../src/db/queries/meetings.js');
  const { exportMeetingOrThrow } = await import('../src/db/queries/export.js');
  const titles = (sqlite.prepare('SELECT title FROM meetings ORDER BY id LIMIT 300').all() as { title: string }[]).map((r) => r.title);
  const fragments = titles.map((t, i) => (i % 2 ? t.slice(t.indexOf('#')) : t.split(' ').slice(1, 3).join(' ').toLowerCase()));
  const time = (fn: (i: number) => unknown, n: number) => {
    for (let i = 0; i < 5; i++) fn(i);
    const t: number[] = [];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      fn(i);
      t.push(performance.now() - t0);
    }
    return t;
  };
  const q = time((i) => JSON.stringify(listMeetings(sqlite, { query: fragments[i % fragments.length]! }, { limit: 20, offset: 0 })), calls);
  const e = time(() => JSON.stringify(exportMeetingOrThrow(sqlite, longestMeetingId)), 30);
  const { searchTranscripts } = await import('../src/db/queries/search.js');
  const searchWords = (sqlite.prepare("SELECT text FROM transcript_words WHERE transcript_id = (SELECT id FROM transcripts ORDER BY id LIMIT 1 OFFSET 3) AND length(text) > 6 LIMIT 200").all() as { text: string }[]).map((r) => r.text);
  const pairs = searchWords.map((w, i) => (i % 2 ? w : `${w} ${searchWords[(i + 1) % searchWords.length]}`));
  const s = time((i) => JSON.stringify(searchTranscripts(sqlite, { query: pairs[i % pairs.length]! }, { limit: 10, offset: 0 })), Math.min(calls, 300));
  const { getTranscriptPageOrThrow } = await import('../src/db/queries/transcripts.js');
  const words = (sqlite.prepare('SELECT word_count AS n FROM transcripts WHERE meeting_id = ?').get(longestMeetingId) as { n: number }).n;
  const page = (offset: number) => time(() => JSON.stringify(getTranscriptPageOrThrow(sqlite, longestMeetingId, { offset, limit: 200 })), calls);
  const transcriptStart = median(page(0));
  const transcriptEnd = median(page(words - 200));
  const rows: Row[] = [
    { name: 'server-side search_transcripts (1-2 words)', value: ms(median(s)), detail: `p99 ${ms(quantile(s, 0.99))}`, budget: '< 20 ms', ok: median(s) < 20 },
    { name: 'server-side list_meetings query fragment', value: ms(median(q)), detail: `p99 ${ms(quantile(q, 0.99))}`, budget: '< 5 ms', ok: median(q) < 5 },
    { name: 'server-side export_meeting, longest transcript', value: ms(median(e), 1), detail: `p99 ${ms(quantile(e, 0.99), 1)}`, budget: '< 50 ms', ok: median(e) < 50 },
  ];
  return { rows, transcriptStart, transcriptEnd };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { benchArgs } = await import('./args.js');
  const values = benchArgs('mcp', 'Benchmark `syntheo mcp`: start-up, and tool calls on a generated database.', {
    db: { type: 'string', value: 'FILE', default: 'bench/.data/large.db', description: 'Database made by generate.js' },
    calls: { type: 'string', value: 'N', default: '1000', description: 'Calls per measured tool' },
    'startup-runs': { type: 'string', value: 'N', default: '15', description: 'Start-ups measured' },
  });
  if (!existsSync(values.db!)) throw new Error(`${values.db} does not exist: generate it with node dist/bench/generate.js`);
  const { printTable } = await import('./stats.js');
  const result = await benchMcp({ db: values.db!, calls: Number(values.calls), startupRuns: Number(values['startup-runs']) });
  process.stdout.write(`${printTable('syntheo mcp', result.rows)}\n`);
}
