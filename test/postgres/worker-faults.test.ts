import { closeSync, openSync, writeSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { wavHeader } from '../../src/audio/wav.js';
import { openStore } from '../../src/db/engine.js';
import type { Logger } from '../../src/log.js';
import { startWorker as startWorkerInProcess } from '../../src/worker/start.js';
import { readTuning } from '../../src/worker/tuning.js';
import { pino } from 'pino';
import type { RecordingImport } from '../../src/db/queries/types.js';
import type { Store } from '../../src/db/store.js';
import { BUDGET_WORDS, fault, startFakeTranscriptionServer, type FakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { startLlmServer, type LlmServer } from '../support/llm-server.js';
import { call, callError, connectV2, type Connected } from '../support/mcp.js';
import { clusterForBlock } from '../support/postgres.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { needs } from '../support/system-tools.js';
import { startWorker, type WorkerProcess } from '../support/worker-process.js';

// Faults with real processes on PostgreSQL: the built `syntheo worker` killed with SIGKILL mid-job,
// and the PostgreSQL server stopped and started again under two `syntheo mcp` and two workers with
// jobs in flight. What is checked is what a user sees: job states, meetings, transcripts, summaries.

const INTERRUPTED = (stage: string) =>
  `Interrupted: the worker processing this import stopped while ${stage} (it was killed, crashed, or lost its lease). The meeting and the transcript stored so far are kept; the job will not restart by itself. To process the recording again, import it again with a new request_key.`;

const MiB = 1024 * 1024;
const quiet = pino({ level: 'silent' }) as unknown as Logger;

const ended = (j: RecordingImport) => j.processing_status === 'done' || j.processing_status === 'failed';

async function until(store: Store, jobId: string, done: (job: RecordingImport) => boolean = ended, timeoutMs = 60_000): Promise<RecordingImport> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await store.imports.get(jobId).catch(() => null);
    if (job && done(job)) return job;
    if (Date.now() > deadline) throw new Error(`import ${jobId} still ${job?.processing_status ?? '(unreadable)'} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function sql<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(text, values)).rows as T[];
  } finally {
    await db.end();
  }
}

/**
 * A transcription server that holds every request until `open()`, then passes it on to `target`:
 * jobs sit in `transcribing` for as long as the test wants, and answer when it says so.
 */
async function gate(target: string): Promise<{ url: string; held(): number; open(): void; close(): Promise<void> }> {
  let opened = false;
  const held: (() => void)[] = [];
  const forward = (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const out = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const go = () => forward(req, Buffer.concat(parts), res);
      if (opened) go();
      else held.push(go);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held.length,
    open: () => {
      opened = true;
      for (const go of held.splice(0)) go();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(needs('postgresql'))('PostgreSQL: faults with real worker and mcp processes', () => {
  const pgBlock = clusterForBlock();
  const { cleanups } = pgBlock;

  async function database() {
    const url = await pgBlock.cluster.createDatabase();
    const store = await openStore(url, { create: true });
    cleanups.push(() => store.close());
    return { url, store };
  }

  async function worker(url: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
    const w = await startWorker(url, { env });
    cleanups.push(() => w.stop('SIGKILL'));
    return w;
  }

  async function servers(store: Store): Promise<{ stt: FakeTranscriptionServer; llm: LlmServer }> {
    const stt = await startFakeTranscriptionServer();
    const llm = await startLlmServer();
    cleanups.push(() => stt.close(), () => llm.close());
    await store.settings.write('transcription.url', stt.url);
    await store.settings.write('llm.url', llm.url);
    await store.settings.write('llm.model', 'test-model');
    return { stt, llm };
  }

  /**
   * A TCP proxy to the cluster that, once armed, passes the next COMMIT on and cuts the client's side at
   * once: the server commits, the client sees a lost connection.
   */
  async function commitCutter(url: string): Promise<{ url: string; arm(): void; cuts(): number }> {
    let armed = false;
    let cut = 0;
    const proxy = createNetServer((client) => {
      const server = connect(pgBlock.cluster.port, '127.0.0.1');
      client.on('error', () => {});
      server.on('error', () => client.destroy());
      client.on('close', () => server.end());
      server.pipe(client);
      client.on('data', (data: Buffer) => {
        server.write(data);
        if (armed && data.includes('COMMIT')) {
          armed = false;
          cut++;
          server.unpipe(client);
          client.destroy();
        }
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    return {
      url: `postgresql://postgres:${encodeURIComponent(pgBlock.cluster.password)}@127.0.0.1:${(proxy.address() as AddressInfo).port}/${new URL(url).pathname.slice(1)}`,
      arm: () => {
        armed = true;
      },
      cuts: () => cut,
    };
  }

  /** A worker in this process on its own connection pool to `url` (the proxy's, or the cluster's), stopped after the test. */
  async function workerAt(url: string) {
    const store = await openStore(url, { create: false });
    cleanups.push(() => store.close());
    const env = { SYNTHEO_WORKER_LEASE_MS: '15000', SYNTHEO_WORKER_POLL_MS: '100', SYNTHEO_HTTP_RETRIES: '0' };
    const w = await startWorkerInProcess({ store, logger: quiet, env, tuning: readTuning(env) });
    cleanups.push(() => w.stop('test over'));
    return w;
  }

  let n = 0;
  async function recording(): Promise<string> {
    const file = join(pgBlock.tmp.dir, `meeting-${++n}.mp3`);
    await copyFile(fixturePath('budget', 'mp3'), file);
    return file;
  }

  /** What one meeting holds: transcripts, words, summaries, action items (counted in the database, not as read). */
  async function holdings(url: string, meetingId: string) {
    const [row] = await sql<{ transcripts: number; words: number; summaries: number; actions: number }>(
      url,
      `SELECT (SELECT count(*)::int FROM transcripts WHERE meeting_id = $1) AS transcripts,
              (SELECT count(*)::int FROM transcript_words w JOIN transcripts t ON t.id = w.transcript_id WHERE t.meeting_id = $1) AS words,
              (SELECT count(*)::int FROM summaries WHERE meeting_id = $1) AS summaries,
              (SELECT count(*)::int FROM action_items WHERE meeting_id = $1) AS actions`,
      [meetingId],
    );
    return row!;
  }

  const claims = (workers: WorkerProcess[]) => workers.flatMap((w) => w.logs.filter((l) => l.msg === 'import claimed').map((l) => l.jobId as string));

  it.each([
    { stage: 'transcribing', words: 0 },
    { stage: 'summarizing', words: BUDGET_WORDS.length },
  ])('kill -9 of a worker while $stage: a second worker writes the job down as interrupted once its lease runs out; nothing is done twice', async ({ stage, words }) => {
    const { url, store } = await database();
    const { stt, llm } = await servers(store);
    // The first request of the stage never gets an answer: the kill lands while the worker waits for it.
    (stage === 'transcribing' ? stt : llm).script(fault.hang());
    const env = { SYNTHEO_WORKER_LEASE_MS: '3000' };
    const first = await worker(url, env);
    const queued = await store.imports.enqueue({ filePath: await recording(), title: `Killed while ${stage}` });
    const server = stage === 'transcribing' ? stt : llm;
    // pending() === 0: the server has read the whole request and taken the hang fault.
    await waitFor('the request held by the server', async () => server.requests.length === 1 && server.pending() === 0 && (await store.imports.get(queued.job_id)).processing_status === stage);

    first.proc.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await sql(url, 'SELECT stopped_at FROM workers WHERE pid = $1', [first.pid])).toEqual([{ stopped_at: null }]);

    const second = await worker(url, env);
    await second.waitForLog((l) => l.msg === 'imports of a worker that stopped were marked interrupted' && (l.jobs as string[]).includes(queued.job_id), 30_000);
    const job = await store.imports.get(queued.job_id);
    expect(job).toMatchObject({ processing_status: 'failed', summary_status: 'failed', error: INTERRUPTED(stage) });
    expect(await sql(url, 'SELECT status, lease_expires_at FROM recording_imports WHERE id = $1', [queued.job_id])).toEqual([{ status: 'failed', lease_expires_at: null }]);
    // One meeting, the transcript stored before the kill kept as it was, no summary; the stored recording dropped.
    expect(await sql(url, 'SELECT title FROM meetings')).toEqual([{ title: `Killed while ${stage}` }]);
    expect(await holdings(url, job.meeting_id)).toEqual({ transcripts: words > 0 ? 1 : 0, words, summaries: 0, actions: 0 });
    expect(await sql(url, 'SELECT count(*)::int AS n FROM recording_chunks WHERE job_id = $1', [queued.job_id])).toEqual([{ n: 0 }]);

    // The second worker does its own work and only that: one request per job in all.
    const other = await store.imports.enqueue({ filePath: await recording(), title: 'After the kill' });
    const done = await until(store, other.job_id);
    expect(done).toMatchObject({ processing_status: 'done', summary_status: 'done', error: null });
    expect(await holdings(url, done.meeting_id)).toEqual({ transcripts: 1, words: BUDGET_WORDS.length, summaries: 1, actions: 1 });
    expect(claims([second])).toEqual([other.job_id]);
    expect(stt.requests).toHaveLength(2);
    expect(llm.requests).toHaveLength(stage === 'summarizing' ? 2 : 1);
    expect(await holdings(url, job.meeting_id)).toEqual({ transcripts: words > 0 ? 1 : 0, words, summaries: 0, actions: 0 });
  });

  it('PostgreSQL stopped while a worker copies the stored recording out of it: the copy starts again once the server is back, and the job is done', async () => {
    const { url, store } = await database();
    const { stt } = await servers(store);
    // One request for the whole file, however long.
    await store.settings.write('transcription.max_upload_mb', '1024');
    await store.settings.write('transcription.chunk_seconds', '86400');
    const file = join(pgBlock.tmp.dir, 'long.wav');
    const fd = openSync(file, 'w');
    writeSync(fd, wavHeader(96 * MiB));
    const block = Buffer.alloc(MiB, 3);
    for (let i = 0; i < 96; i++) writeSync(fd, block);
    closeSync(fd);
    const w = await worker(url, { SYNTHEO_WORKER_LEASE_MS: '15000' });
    // Queued while the worker is frozen, so that the stop lands at the claim, during the copy.
    process.kill(w.pid, 'SIGSTOP');
    let queued;
    try {
      queued = await store.imports.enqueue({ filePath: file, title: 'Long' });
    } finally {
      process.kill(w.pid, 'SIGCONT');
    }
    await w.waitForLog((l) => l.msg === 'import claimed' && l.jobId === queued.job_id, 30_000);
    pgBlock.cluster.stopServer();
    await new Promise((r) => setTimeout(r, 1_500));
    pgBlock.cluster.start();
    const job = await until(store, queued.job_id, ended, 120_000);
    expect(job).toMatchObject({ processing_status: 'done', error: null });
    expect(stt.requests).toHaveLength(1);
    expect(stt.requests[0]!.file).toMatchObject({ filename: 'long.wav', size: 96 * MiB + 44 });
    expect(await holdings(url, job.meeting_id)).toMatchObject({ transcripts: 1, words: BUDGET_WORDS.length });
  });

  it('the connection cut right after a COMMIT reached the server: the worker sees it committed when it retries, and the job goes on (done once)', async () => {
    const { url, store } = await database();
    const { stt, llm } = await servers(store);
    const held = await gate(stt.url);
    cleanups.push(() => held.close());
    await store.settings.write('transcription.url', held.url);
    const proxy = await commitCutter(url);
    await workerAt(proxy.url);
    const queued = await store.imports.enqueue({ filePath: await recording(), title: 'Cut after COMMIT' });
    await waitFor('the transcription request held', () => held.held() === 1);
    // The next COMMIT is the transcript's (transcribing -> summarizing).
    proxy.arm();
    held.open();
    const job = await until(store, queued.job_id);
    expect(proxy.cuts()).toBe(1);
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'done', error: null });
    expect(await holdings(url, job.meeting_id)).toEqual({ transcripts: 1, words: BUDGET_WORDS.length, summaries: 1, actions: 1 });
    expect(stt.requests).toHaveLength(1);
    expect(llm.requests).toHaveLength(1);
  });

  // Cutting the recording into chunks needs ffmpeg (Debian package `ffmpeg`).
  it.skipIf(needs('ffmpeg'))('a chunked import whose connection is cut right after a chunk\'s COMMIT: the retry sees the chunk stored and does not store its words twice', async () => {
    const { url, store } = await database();
    const { stt } = await servers(store);
    await store.settings.write('transcription.chunk_seconds', '2');
    // The same recording imported once without a fault: what the meeting must hold.
    const plain = await workerAt(url);
    const control = await until(store, (await store.imports.enqueue({ filePath: await recording(), title: 'Chunked, no fault' })).job_id);
    await plain.stop('test over');
    expect(control).toMatchObject({ processing_status: 'done', error: null });
    expect(control.progress!.chunks_total).toBeGreaterThan(1);
    const expected = await holdings(url, control.meeting_id);

    const held = await gate(stt.url);
    cleanups.push(() => held.close());
    await store.settings.write('transcription.url', held.url);
    const proxy = await commitCutter(url);
    await workerAt(proxy.url);
    const queued = await store.imports.enqueue({ filePath: await recording(), title: 'Chunked, cut after COMMIT' });
    await waitFor('the first chunk\'s transcription request held', () => held.held() >= 1);
    // The next COMMIT is the first chunk's words (with chunks_done = 1).
    proxy.arm();
    held.open();
    const job = await until(store, queued.job_id);
    expect(proxy.cuts()).toBe(1);
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'done', error: null, progress: control.progress });
    expect(await holdings(url, job.meeting_id)).toEqual(expected);
  });

  it('PostgreSQL stopped and started under 2 syntheo mcp and 2 workers with jobs in flight: -32603 meanwhile, then every job done once', async () => {
    const { url, store } = await database();
    const { stt, llm } = await servers(store);
    const held = await gate(stt.url);
    cleanups.push(() => held.close());
    await store.settings.write('transcription.url', held.url);
    // The lease outlasts the outage (renewals fail while the server is down); concurrency 2 each.
    const env = { SYNTHEO_WORKER_LEASE_MS: '15000', SYNTHEO_WORKER_CONCURRENCY: '2' };
    const workers = [await worker(url, env), await worker(url, env)];
    const mcps: Connected<Client>[] = [];
    for (let i = 0; i < 2; i++) {
      const m = await connectV2(url, 'modern');
      cleanups.push(() => m.close());
      mcps.push(m);
    }
    // Six jobs through both assistants: four in flight (held at the transcription server), two queued.
    const jobs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const job = await call<{ job_id: string; processing_status: string }>(mcps[i % 2]!.client, 'import_recording', { file_path: await recording(), request_key: `outage-${i}` });
      // A worker may have claimed it (LISTEN/NOTIFY) before the answer was read back, and sent it to the transcription
      // server, which holds it (CI on a fast machine read `transcribing` once).
      expect(['queued', 'importing', 'transcribing']).toContain(job.processing_status);
      jobs.push(job.job_id);
    }
    await waitFor('four transcription requests held', () => held.held() === 4);

    pgBlock.cluster.stopServer();
    let restarted = false;
    try {
      for (const m of mcps) {
        const down = await callError(m.client, 'list_meetings', {});
        expect(down.code).toBe(-32603);
        expect(down.message).toMatch(/^(The PostgreSQL database at .+ cannot be reached right now \(it may be restarting\)\. Try again in a moment\.|Cannot connect to PostgreSQL at .+: nothing is listening there\. .*)$/);
        const status = await callError(m.client, 'get_recording_import', { job_id: jobs[0] });
        expect(status.code).toBe(-32603);
      }
      // The transcriptions answer while the database is away: the workers must store them once it is back.
      held.open();
      await waitFor('four transcription answers', () => stt.requests.filter((r) => r.status === 200).length === 4);
      await new Promise((r) => setTimeout(r, 1_500));
      pgBlock.cluster.start();
      restarted = true;
    } finally {
      if (!restarted) pgBlock.cluster.start();
    }

    // The same mcp processes answer again, without a restart.
    for (const m of mcps) expect((await call<{ pagination: { total: number } }>(m.client, 'list_meetings', {})).pagination.total).toBe(6);
    const final = [];
    for (const id of jobs) final.push(await until(store, id, ended, 90_000));
    expect(final.map((j) => [j.processing_status, j.summary_status, j.error])).toEqual(Array(6).fill(['done', 'done', null]));
    for (const j of final) expect(await holdings(url, j.meeting_id)).toEqual({ transcripts: 1, words: BUDGET_WORDS.length, summaries: 1, actions: 1 });
    // Each job claimed once, by one of the two workers, and transcribed and summarised once.
    expect(claims(workers).sort()).toEqual([...jobs].sort());
    expect(stt.requests).toHaveLength(6);
    expect(llm.requests).toHaveLength(6);
    expect(await sql(url, "SELECT count(*)::int AS n FROM recording_imports WHERE status <> 'done'")).toEqual([{ n: 0 }]);
    expect(await sql(url, 'SELECT count(*)::int AS n FROM recording_chunks')).toEqual([{ n: 0 }]);
    for (const m of mcps) expect((await call<{ processing_status: string }>(m.client, 'get_recording_import', { job_id: jobs[5] })).processing_status).toBe('done');
    // Both workers are still running (they reconnected, not restarted).
    for (const w of workers) expect(w.proc.exitCode).toBeNull();
  });
});
