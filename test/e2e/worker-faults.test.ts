import { appendFile, copyFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { transcriptText } from '../../src/db/queries/transcripts.js';
import type { RecordingImport } from '../../src/db/queries/types.js';
import type { Store } from '../../src/db/store.js';
import { openTestDb } from '../support/db.js';
import { TEST_ENGINE, serve } from '../support/engine.js';
import { BUDGET_WORDS, fault, layout, startFakeTranscriptionServer, type FakeTranscriptionOptions, type FakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { startLlmServer, type LlmServer, type LlmServerOptions } from '../support/llm-server.js';
import { startForwardProxy, type ForwardProxy } from '../support/loopback.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { startWorker, waitForImport, type WorkerProcess } from '../support/worker-process.js';
import { wavHeader } from '../../src/audio/wav.js';

// Faults, end to end through one spawned worker: the settings are read per job, so each test points the
// worker at its own scripted server. Retries use the short test knobs (2 retries, 50-200 ms backoff).

const API_KEY = 'sk-test-secret-key-8731';
let db: ReturnType<typeof openTestDb>;
let store: Store;
let location: string;
let worker: WorkerProcess;
let n = 0;
const servers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  db = openTestDb();
  const served = await serve(db.path);
  ({ location } = served);
  store = await served.store();
  worker = await startWorker(location, { env: { SYNTHEO_TRANSCRIPTION_API_KEY: API_KEY } });
});
afterAll(async () => {
  expect(await worker?.stop()).toEqual({ code: 0, signal: null });
  db?.cleanup();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const key of ['transcription.url', 'transcription.model', 'transcription.timeout_seconds', 'llm.url', 'llm.model']) await store.settings.delete(key);
});

async function transcriptionServer(opts: FakeTranscriptionOptions = {}): Promise<FakeTranscriptionServer> {
  const s = await startFakeTranscriptionServer(opts);
  servers.push(s);
  await store.settings.write('transcription.url', s.url);
  return s;
}

async function llmServer(opts: LlmServerOptions = {}, url = (base: string) => base): Promise<LlmServer> {
  const s = await startLlmServer(opts);
  servers.push(s);
  await store.settings.write('llm.url', url(s.url));
  await store.settings.write('llm.model', 'test-model');
  return s;
}

async function recording(): Promise<string> {
  const file = join(db.dir, `rec-${++n}.mp3`);
  await copyFile(fixturePath('budget', 'mp3'), file);
  return file;
}

async function importAndWait(file?: string): Promise<RecordingImport> {
  const queued = await store.imports.enqueue({ filePath: file ?? (await recording()) });
  return waitForImport(store, queued.job_id, { timeoutMs: 20_000 });
}

/** Runs `change` while the worker is frozen, so it cannot claim the job before the change. */
async function whileFrozen<T>(change: () => Promise<T>): Promise<T> {
  process.kill(worker.pid, 'SIGSTOP');
  try {
    return await change();
  } finally {
    process.kill(worker.pid, 'SIGCONT');
  }
}

// OpenAI's verbose_json words come without their punctuation.
const said = BUDGET_WORDS.map((w) => w.text.replace(/[.,]$/, '')).join(' ');
// The words as plain "Speaker: text" (the page's own text carries turn times since the token-lean pages).
const transcriptOf = async (job: RecordingImport) => ({ text: transcriptText((await store.transcripts.page(job.meeting_id, { offset: 0, limit: 500 })).words) });

describe('transient failures are retried inside the job', () => {
  it('500 then success: done, two requests', async () => {
    const s = await transcriptionServer();
    s.script(fault.status(500, 'The server had an error while processing your request.'));
    const job = await importAndWait();
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'skipped_no_model', error: null });
    expect(s.requests.map((r) => r.status)).toEqual([500, 200]);
    expect((await transcriptOf(job)).text).toBe(said);
  });

  it('429 with Retry-After: waits as told, then done', async () => {
    const s = await transcriptionServer();
    s.script(fault.rateLimit(1));
    const job = await importAndWait();
    expect(job.processing_status).toBe('done');
    expect(s.requests.map((r) => r.status)).toEqual([429, 200]);
    expect(s.requests[1]!.receivedAt - s.requests[0]!.receivedAt).toBeGreaterThanOrEqual(950);
  });
});

describe('permanent failures fail the job with a message a person can act on', () => {
  it('400: failed at once, the server message quoted, no retry', async () => {
    const s = await transcriptionServer();
    s.script(fault.status(400, 'Invalid file format. Supported formats: flac, mp3, wav.'));
    const job = await importAndWait();
    expect(job).toMatchObject({ processing_status: 'failed', summary_status: 'failed' });
    expect(job.error).toBe(
      `Transcription failed: Transcription server at ${s.url}/v1/audio/transcriptions rejected the request (HTTP 400: Invalid file format. Supported formats: flac, mp3, wav). Check transcription.model and transcription.url.`,
    );
    expect(s.requests).toHaveLength(1);
    // The meeting stays, with no transcript.
    expect(await store.meetings.get(job.meeting_id)).toMatchObject({ processing_status: 'failed', transcript: null });
  });

  it('a malformed 200 (not JSON)', async () => {
    const s = await transcriptionServer();
    s.script(fault.malformed('<html><body>502 Bad Gateway</body></html>'));
    const job = await importAndWait();
    expect(job.processing_status).toBe('failed');
    expect(job.error).toBe(
      `Transcription failed: Transcription server at ${s.url}/v1/audio/transcriptions answered HTTP 200 with a body that is not JSON (starts "<html><body>502 Bad Gateway</body></html>"). Check that transcription.url points at the right kind of server.`,
    );
  });

  it('a refused connection, after the retries', async () => {
    const s = await transcriptionServer();
    await s.close(); // nothing listens there any more
    const job = await importAndWait();
    expect(job.processing_status).toBe('failed');
    expect(job.error).toBe(
      `Transcription failed: Transcription server at ${s.url}/v1/audio/transcriptions refused the connection (ECONNREFUSED) (3 attempts). Is it running? Check transcription.url.`,
    );
  });

  it('a server that never answers, bounded by transcription.timeout_seconds', async () => {
    const s = await transcriptionServer();
    s.script(fault.hang());
    await store.settings.write('transcription.timeout_seconds', '1');
    const started = Date.now();
    const job = await importAndWait();
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(job.processing_status).toBe('failed');
    expect(job.error).toMatch(/^Transcription failed: Transcription server at .* sent no answer within 1 s \(waiting for a response\)\. It may be overloaded/);
    expect(s.requests).toHaveLength(1);
  });

  it('a server trickling its answer is cut off by transcription.timeout_seconds, counted from the request', async () => {
    const s = await transcriptionServer();
    s.script(fault.trickle(500));
    await store.settings.write('transcription.timeout_seconds', '2');
    const job = await importAndWait();
    expect(job.processing_status).toBe('failed');
    expect(job.error).toBe(
      `Transcription failed: Transcription server at ${s.url}/v1/audio/transcriptions did not finish its answer within 2 s (HTTP 200; the body was still arriving). A proxy or the server is sending it too slowly: check them, or allow more time.`,
    );
    expect(s.requests).toHaveLength(1);
  });

  it('never stores the API key in the error', async () => {
    const s = await transcriptionServer();
    s.script(fault.status(401, `Incorrect API key provided: ${API_KEY}.`));
    const job = await importAndWait();
    expect(s.requests[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(job.error).toBe(
      `Transcription failed: Transcription server at ${s.url}/v1/audio/transcriptions rejected the request (HTTP 401: Incorrect API key provided: [redacted]). The server refused the credentials. Check SYNTHEO_TRANSCRIPTION_API_KEY.`,
    );
  });

  it('no transcription server configured', async () => {
    const job = await importAndWait();
    expect(job.processing_status).toBe('failed');
    expect(job.error).toMatch(/^No transcription server is configured\. Set one with `syntheo config set transcription\.url http:\/\/127\.0\.0\.1:8178`/);
  });
});

describe('the recording itself', () => {
  // On PostgreSQL the recording travels with the job (stored at enqueue, SPEC section 8): the worker never
  // reads the file again, so a file moved or changed afterwards is no fault there (the test after these two).
  const fileStaysRead = TEST_ENGINE === 'sqlite';

  it.runIf(fileStaysRead)('deleted after enqueue: failed, the file named', async () => {
    await transcriptionServer();
    const file = await recording();
    const queued = await whileFrozen(async () => {
      const job = await store.imports.enqueue({ filePath: file });
      await unlink(file);
      return job;
    });
    const job = await waitForImport(store, queued.job_id);
    expect(job.processing_status).toBe('failed');
    expect(job.error).toBe(
      `The recording ${file} vanished since import_recording (it was moved, renamed or deleted). Put it back, or import it again with a new request_key and the file's new path.`,
    );
  });

  it.runIf(fileStaysRead)('changed after enqueue: failed, saying how', async () => {
    const s = await transcriptionServer();
    const file = await recording();
    const queued = await whileFrozen(async () => {
      const job = await store.imports.enqueue({ filePath: file });
      await appendFile(file, Buffer.alloc(1000));
      return job;
    });
    const job = await waitForImport(store, queued.job_id);
    expect(job.processing_status).toBe('failed');
    // The mtime may or may not differ at millisecond resolution: the size alone proves the change.
    expect(job.error).toMatch(/^The file changed since import_recording: its size went from 26120 to 27120 bytes( and it was modified at .*)?, so it is not the recording that was queued\./);
    expect(s.requests).toHaveLength(0);
  });

  it.runIf(!fileStaysRead)('changed, then deleted after enqueue: the recording stored with the job is transcribed, as queued', async () => {
    const s = await transcriptionServer();
    const file = await recording();
    const queued = await whileFrozen(async () => {
      const job = await store.imports.enqueue({ filePath: file });
      await appendFile(file, Buffer.alloc(1000));
      await unlink(file);
      return job;
    });
    const job = await waitForImport(store, queued.job_id);
    expect(job).toMatchObject({ processing_status: 'done', error: null });
    expect(s.requests.map((r) => r.file?.size)).toEqual([26120]);
    expect((await transcriptOf(job)).text).toBe(said);
  });

  it('a WAV with no audio in it: failed, no duration', async () => {
    const s = await transcriptionServer();
    const file = join(db.dir, 'empty.wav');
    const header = wavHeader(0);
    await writeFile(file, header);
    const job = await importAndWait(file);
    expect(job.processing_status).toBe('failed');
    expect(job.error).toMatch(new RegExp(`^The recording ${file} \\(WAV\\) has no readable duration`));
    expect(s.requests).toHaveLength(0);
  });
});

describe('summaries', () => {
  it('LLM down: the import is done, the summary failed, and error says why', async () => {
    await transcriptionServer();
    const llm = await llmServer();
    await llm.close();
    const job = await importAndWait();
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'failed' });
    expect(job.error).toBe(
      `The import succeeded (the transcript is stored) but the summary failed: LLM server at ${llm.url}/v1/chat/completions refused the connection (ECONNREFUSED) (3 attempts). Is it running? Check llm.url.`,
    );
    expect((await transcriptOf(job)).text).toBe(said);
  });

  it('too short to summarise: skipped_too_short, the LLM is not asked', async () => {
    await transcriptionServer({ words: layout('Call me back tomorrow.', 'A', 0.2) });
    const llm = await llmServer();
    const job = await importAndWait();
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'skipped_too_short', error: null });
    expect(llm.requests).toHaveLength(0);
  });

  it('diarized transcription: speakers stored on the words and the meeting', async () => {
    const s = await transcriptionServer();
    await store.settings.write('transcription.model', 'gpt-4o-transcribe-diarize');
    const llm = await llmServer();
    const job = await importAndWait();
    expect(s.requests[0]!.fields!.response_format).toEqual(['diarized_json']);
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'done' });
    const meeting = await store.meetings.get(job.meeting_id);
    expect(meeting.speakers).toEqual(['A', 'B']);
    expect((await transcriptOf(job)).text).toBe('A: The budget review moves to Thursday.\nB: Maria will send the revised numbers to the finance team before Wednesday.');
    expect(meeting.action_items).toMatchObject([{ text: 'Maria will send the revised numbers to the finance team before Wednesday', assignee: 'Maria', due_date: null, done: false }]);
    expect(llm.chats()[0]!.messages[1]!.content).toContain('B: Maria will send');
  });

  it('a reply of 200,000 "{": the worker stays responsive, the import is done and the summary failed', async () => {
    await transcriptionServer();
    await llmServer({ reply: () => '{'.repeat(200_000) });
    const job = await importAndWait();
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'failed' });
    expect(job.error).toMatch(
      /^The import succeeded \(the transcript is stored\) but the summary failed: LLM server at .*\/v1\/chat\/completions answered HTTP 200 but the reply is broken JSON\./,
    );
  });

  it('30,000 <think> never closed: done, the summary failed saying why', async () => {
    await transcriptionServer();
    await llmServer({ reply: () => '<think>'.repeat(30_000) });
    const job = await importAndWait();
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'failed' });
    expect(job.error).toMatch(/but the reply holds only the model's reasoning \(a <think> block that never ends\)\./);
  });

  it('what an LLM may store is bounded: 200 action items, a 50,000-character summary (llm.url given with /v1/)', async () => {
    await transcriptionServer();
    const reply = JSON.stringify({
      summary_markdown: 'm'.repeat(80_000),
      action_items: Array.from({ length: 1_000 }, (_, i) => ({ text: `Task ${i} ${'x'.repeat(2_000)}`, assignee: null, due_date: null })),
    });
    const llm = await llmServer({ reply: () => reply }, (base) => `${base}/v1/`);
    const job = await importAndWait();
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'done', error: null });
    expect(llm.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    const meeting = await store.meetings.get(job.meeting_id);
    expect(meeting.action_items).toHaveLength(200);
    expect(meeting.action_items[199]!.text).toBe(`Task 199 ${'x'.repeat(990)}…`);
    expect(meeting.summaries.map((x) => x.content.length)).toEqual([50_000]);
  });
});

describe('through a proxy (HTTP_PROXY, NO_PROXY)', () => {
  let pdb: ReturnType<typeof openTestDb>;
  let pstore: Store;
  let pworker: WorkerProcess;
  let proxy: ForwardProxy;
  let stt: FakeTranscriptionServer;
  let llm: LlmServer;

  beforeAll(async () => {
    pdb = openTestDb();
    const served = await serve(pdb.path);
    pstore = await served.store();
    proxy = await startForwardProxy();
    stt = await startFakeTranscriptionServer();
    llm = await startLlmServer();
    // The transcription server is reached through the proxy; the LLM's host:port is in NO_PROXY.
    pworker = await startWorker(served.location, { env: { HTTP_PROXY: proxy.url, NO_PROXY: `localhost,${new URL(llm.url).host}` } });
    await pstore.settings.write('transcription.url', stt.url);
    await pstore.settings.write('llm.url', llm.url);
    await pstore.settings.write('llm.model', 'test-model');
  });
  afterAll(async () => {
    expect(await pworker?.stop()).toEqual({ code: 0, signal: null });
    await Promise.all([proxy, stt, llm].map((s) => s?.close()));
    pdb?.cleanup();
  });

  it('sends the transcription through the proxy and the LLM request past it', async () => {
    const file = join(pdb.dir, 'proxied.mp3');
    await copyFile(fixturePath('budget', 'mp3'), file);
    const queued = await pstore.imports.enqueue({ filePath: file });
    const job = await waitForImport(pstore, queued.job_id, { timeoutMs: 20_000 });
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'done', error: null });
    expect(proxy.tunnels).toEqual([new URL(stt.url).host]);
    expect(stt.requests).toHaveLength(1);
    expect(proxy.outboundPorts.has(stt.requests[0]!.remotePort)).toBe(true);
    expect(llm.requests).toHaveLength(1);
    expect(proxy.outboundPorts.has(llm.requests[0]!.remotePort)).toBe(false);
    expect(pworker.logs.find((l) => l.msg === 'requests go through a proxy')).toMatchObject({ httpProxy: proxy.url, noProxy: `localhost,${new URL(llm.url).host}` });
  });
});

