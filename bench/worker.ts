// The import pipeline's own cost: per-job overhead with zero-latency loopback servers (jobs/s, ms per
// job), and the upload of a 1 GiB recording (throughput, and how much it raises the worker's peak RSS).
//   node dist/bench/worker.js [--jobs 40] [--upload-mb 1024]
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync, ftruncateSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Sqlite } from '../src/db/open.js';
import { enqueueImport, getImportOrThrow } from '../src/db/queries/imports.js';
import { writeSetting } from '../src/db/queries/settings.js';
import { isWorkerAlive } from '../src/db/queries/workers.js';
import { PACKAGE_ROOT } from '../src/package.js';
import { wavHeader } from '../src/audio/wav.js';
import { median, ms, type Row } from './stats.js';

const CLI = join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js');

/** A transcription server and an LLM that answer at once; the transcription server drains and counts the upload. */
async function instantServers(): Promise<{ url: string; uploads: { bytes: number; startedAt: number; endedAt: number }[]; close(): Promise<void> }> {
  const uploads: { bytes: number; startedAt: number; endedAt: number }[] = [];
  const words = 'we agreed that the budget review moves to Thursday and Alice sends the numbers before noon'.split(' ');
  const server: Server = createServer((req, res) => {
    const startedAt = performance.now();
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/v1/audio/transcriptions')) {
        uploads.push({ bytes, startedAt, endedAt: performance.now() });
        res.end(JSON.stringify({ task: 'transcribe', language: 'en', duration: 6, text: words.join(' '), words: words.map((word, i) => ({ word, start: i * 0.4, end: i * 0.4 + 0.3 })) }));
      } else if (req.url?.startsWith('/v1/chat/completions')) {
        const content = JSON.stringify({ summary_markdown: '## Summary\n\n- The budget review moves to Thursday.', action_items: [{ text: 'Send the numbers', assignee: 'Alice', due_date: null }] });
        res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'bench', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, uploads, close: () => new Promise((r) => server.close(() => r())) };
}

/** A valid 16 kHz mono 16-bit WAV of `bytes` of PCM; sparse on disk, so 1 GiB costs nothing to make. */
function writeWav(path: string, bytes: number, seed = 0): void {
  const header = wavHeader(bytes);
  const fd = openSync(path, 'w');
  writeSync(fd, header);
  writeSync(fd, Buffer.from([seed & 0xff, seed >> 8])); // distinct content per file
  ftruncateSync(fd, 44 + bytes);
  closeSync(fd);
}

/** SYNTHEO_BENCH_CPU_PROF=DIR writes a V8 CPU profile of each worker into DIR (to see where a job's time goes). */
function startWorker(db: string, env: Record<string, string>): ChildProcess {
  const prof = process.env.SYNTHEO_BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SYNTHEO_BENCH_CPU_PROF}`] : [];
  return spawn(process.execPath, [...prof, CLI, 'worker', '--db', db, '--log-level', 'warn'], { env: { ...process.env, SYNTHEO_WORKER_POLL_MS: '20', ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Peak resident set (VmHWM) of a process, in MiB. */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

function configure(sqlite: Sqlite, url: string): void {
  writeSetting(sqlite, 'transcription.url', url);
  writeSetting(sqlite, 'llm.url', url);
  writeSetting(sqlite, 'llm.model', 'bench');
}

export async function benchWorker(options: { jobs: number; uploadMb: number }): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'syntheo-bench-worker-'));
  const servers = await instantServers();
  const rows: Row[] = [];
  try {
    // Per-job overhead.
    const dbPath = join(dir, 'jobs.db');
    const db = openDatabase(dbPath, { create: true });
    configure(db.sqlite, servers.url);
    const worker = startWorker(dbPath, {});
    await until(() => isWorkerAlive(db.sqlite), 10_000, 'the worker heartbeat');
    const files = Array.from({ length: options.jobs }, (_, i) => {
      const path = join(dir, `job-${i}.wav`);
      writeWav(path, 32_000 * 6, i + 1);
      return path;
    });
    const t0 = performance.now();
    const jobs: string[] = [];
    for (const file of files) jobs.push((await enqueueImport(db.sqlite, { filePath: file })).job_id);
    await until(() => jobs.every((id) => getImportOrThrow(db.sqlite, id).processing_status === 'done'), 120_000, 'the jobs');
    const wall = performance.now() - t0;
    const inWorker = jobs.map((id) => {
      const j = getImportOrThrow(db.sqlite, id);
      return Date.parse(j.finished_at!) - Date.parse(j.started_at!);
    });
    await stop(worker);
    db.close();
    rows.push({ name: `worker: ${options.jobs} jobs, zero-latency servers, concurrency 2`, value: `${((options.jobs / wall) * 1000).toFixed(1)} jobs/s`, detail: `enqueue of the first -> done of the last` });
    rows.push({
      name: 'worker: overhead per job (wall / jobs)',
      value: ms(wall / options.jobs, 1),
      detail: `each job claim -> done: median ${ms(median(inWorker), 1)}, max ${ms(Math.max(...inWorker), 1)} (two at a time)`,
      budget: '< 20 ms',
      ok: wall / options.jobs < 20,
    });

    // Upload of a large recording: streamed, so the worker's memory must not grow with the file.
    const bigDb = openDatabase(join(dir, 'upload.db'), { create: true });
    configure(bigDb.sqlite, servers.url);
    // One request, not chunks: the point is the streaming upload.
    writeSetting(bigDb.sqlite, 'transcription.chunk_seconds', '86400');
    writeSetting(bigDb.sqlite, 'transcription.max_upload_mb', String(options.uploadMb * 2));
    const big = join(dir, 'big.wav');
    writeWav(big, options.uploadMb * 1024 * 1024);
    const uploader = startWorker(bigDb.path, {});
    await until(() => isWorkerAlive(bigDb.sqlite), 10_000, 'the worker heartbeat');
    await new Promise((r) => setTimeout(r, 300));
    const before = peakRssMb(uploader.pid!);
    servers.uploads.length = 0;
    const job = await enqueueImport(bigDb.sqlite, { filePath: big });
    await until(() => ['done', 'failed'].includes(getImportOrThrow(bigDb.sqlite, job.job_id).processing_status), 600_000, 'the upload');
    const after = peakRssMb(uploader.pid!);
    const state = getImportOrThrow(bigDb.sqlite, job.job_id);
    if (state.processing_status !== 'done') throw new Error(`upload job failed: ${state.error}`);
    const upload = servers.uploads[0]!;
    await stop(uploader);
    bigDb.close();
    const seconds = (upload.endedAt - upload.startedAt) / 1000;
    rows.push({ name: `worker: upload of a ${options.uploadMb} MiB recording`, value: `${(upload.bytes / 1024 / 1024 / seconds).toFixed(0)} MiB/s`, detail: `${upload.bytes} bytes in ${seconds.toFixed(2)} s` });
    rows.push({ name: 'worker: peak RSS increase during the upload', value: `${(after - before).toFixed(1)} MiB`, detail: `peak ${before.toFixed(0)} -> ${after.toFixed(0)} MiB`, budget: '< 64 MiB', ok: after - before < 64 });
  } finally {
    await servers.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { benchArgs } = await import('./args.js');
  const values = benchArgs('worker', 'Benchmark syntheo-worker: imports through loopback transcription and LLM servers.', {
    jobs: { type: 'string', value: 'N', default: '40', description: 'Imports to run' },
    'upload-mb': { type: 'string', value: 'N', default: '1024', description: 'Size of the large-upload test (MB)' },
  });
  const { printTable } = await import('./stats.js');
  const rows = await benchWorker({ jobs: Number(values.jobs), uploadMb: Number(values['upload-mb']) });
  process.stdout.write(`${printTable('syntheo-worker', rows)}\n`);
}
