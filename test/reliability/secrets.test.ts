// A sentinel API key in the environment of the worker, `syntheo mcp` and the CLI never shows up:
// not in logs (trace level), the database file, job errors, tool results, exports nor `doctor`, even
// when the servers echo the Authorization header back in their error bodies.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type SyntheoDb } from '../../src/db/open.js';
import { enqueueImport } from '../../src/db/queries/imports.js';
import { writeSetting } from '../../src/db/queries/settings.js';
import { tempDir } from '../support/db.js';
import { startFakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { startWorker, waitForImport, type WorkerProcess } from '../support/worker-process.js';
import { run } from '../cli/cli.js';
import { seed } from './support/fixtures.js';
import { connectTapped } from './support/sessions.js';

const KEY = `sk-${randomBytes(12).toString('hex')}`;
const URL_PASSWORD = `pw${randomBytes(8).toString('hex')}`;
const SECRETS_ENV: Record<string, string> = { SYNTHEO_TRANSCRIPTION_API_KEY: KEY, SYNTHEO_LLM_API_KEY: KEY, SYNTHEO_LOG_LEVEL: 'trace' };

type Echo = 'json-401' | 'html-500' | 'text-200' | 'long-401' | 'context-400';

/** A server that puts the Authorization header it received into its answer, in several shapes. */
async function echoServer(mode: () => Echo): Promise<{ url: string; seen: () => number; close(): Promise<void> }> {
  let seen = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const auth = req.headers.authorization ?? '(none)';
      if (auth.includes(KEY)) seen++;
      const json = (status: number, message: string, code?: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: code ?? null } }));
      };
      switch (mode()) {
        case 'json-401':
          return json(401, `Incorrect API key provided: ${auth}. You can find your API key at https://example.com.`, 'invalid_api_key');
        case 'long-401':
          // The key straddles the 300-character cut of a quoted server message.
          return json(401, `${'x'.repeat(280)} ${auth} and more`);
        case 'context-400':
          return json(400, `This model's maximum context length is 16 tokens. However, you requested 5000 tokens (header ${auth}).`, 'context_length_exceeded');
        case 'html-500':
          res.writeHead(500, { 'content-type': 'text/html' });
          return res.end(`<html><body><h1>Proxy error</h1><p>Request had Authorization: ${auth}</p></body></html>`);
        case 'text-200':
          res.writeHead(200, { 'content-type': 'text/plain' });
          return res.end(`${auth} accepted, but this is not JSON`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen: () => seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

let dir: string;
let cleanup: () => void;
let db: SyntheoDb;
let worker: WorkerProcess;
const outputs: { what: string; text: string }[] = [];
const jobs: string[] = [];
let echo: Awaited<ReturnType<typeof echoServer>>;
let mode: Echo = 'json-401';

function record(what: string, text: string): void {
  outputs.push({ what, text });
}

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('syntheo-secrets-'));
  db = openDatabase(join(dir, 'syntheo.db'), { create: true });
  seed(db.sqlite);
  echo = await echoServer(() => mode);
  const transcription = await startFakeTranscriptionServer({ apiKey: KEY });
  afterAllClose.push(() => echo.close(), () => transcription.close());
  // A URL with a password is accepted from the environment only (config set refuses it).
  SECRETS_ENV.SYNTHEO_LLM_URL = echo.url.replace('http://', `http://user:${URL_PASSWORD}@`);
  worker = await startWorker(db.path, { env: { ...SECRETS_ENV, SYNTHEO_HTTP_RETRIES: '1' }, args: ['--log-level', 'trace'] });

  const mp3 = fixturePath('budget', 'mp3');
  // Transcription fails against the echoing server, in each of its shapes.
  for (const m of ['json-401', 'html-500', 'text-200', 'long-401'] as Echo[]) {
    mode = m;
    writeSetting(db.sqlite, 'transcription.url', echo.url);
    const job = await enqueueImport(db.sqlite, { filePath: mp3, title: `Echo ${m}` });
    jobs.push(job.job_id);
    expect((await waitForImport(db.sqlite, job.job_id, { timeoutMs: 20_000 })).processing_status).toBe('failed');
  }
  // Transcription works (the server checks the key); the LLM echoes it while failing.
  writeSetting(db.sqlite, 'transcription.url', transcription.url);
  writeSetting(db.sqlite, 'llm.model', 'test-model');
  for (const m of ['json-401', 'context-400', 'text-200', 'html-500'] as Echo[]) {
    mode = m;
    const job = await enqueueImport(db.sqlite, { filePath: mp3, title: `LLM echo ${m}` });
    jobs.push(job.job_id);
    const done = await waitForImport(db.sqlite, job.job_id, { timeoutMs: 20_000 });
    expect(done).toMatchObject({ processing_status: 'done', summary_status: 'failed' });
  }
  await worker.stop('SIGTERM');
  record('worker stderr', worker.stderr());
  for (const id of jobs) record(`job ${id} error`, String((db.sqlite.prepare('SELECT error FROM recording_imports WHERE id = ?').get(id) as { error: string | null }).error));
}, 120_000);

const afterAllClose: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of afterAllClose) await c();
  db?.close();
  cleanup?.();
});

describe('a sentinel API key in the environment', () => {
  it('reached the servers (so there was something to leak)', () => {
    expect(echo.seen()).toBeGreaterThanOrEqual(8);
    // Logged at trace level: everything the worker says was written.
    expect(outputs.find((o) => o.what === 'worker stderr')!.text).toContain('"level":20');
  });

  it('is in no worker log line (trace level) and no job error', () => {
    for (const o of outputs) {
      expect(o.text, o.what).not.toContain(KEY);
      // Not even the start of it (a quoted message cut in the middle of the key).
      expect(o.text, o.what).not.toContain(KEY.slice(0, 10));
      expect(o.text, o.what).not.toContain(URL_PASSWORD);
    }
    // The failures still say what went wrong.
    const errors = outputs.filter((o) => o.what.startsWith('job ')).map((o) => o.text);
    expect(errors[0]).toMatch(/refused the credentials\. Check SYNTHEO_TRANSCRIPTION_API_KEY/);
    expect(errors[4]).toMatch(/the summary failed/);
  });

  it('is in no output of syntheo mcp (results, exports, resources, logs at trace level)', async () => {
    const session = await connectTapped(db.path, { mode: 'modern', env: SECRETS_ENV, args: ['--log-level', 'trace'] });
    let text = '';
    try {
      for (const id of jobs) text += JSON.stringify(await session.client.callTool({ name: 'get_recording_import', arguments: { job_id: id } }));
      const meetings = (await session.client.callTool({ name: 'list_meetings', arguments: { limit: 200 } })) as { structuredContent: { meetings: { id: string }[] } };
      for (const m of meetings.structuredContent.meetings) {
        text += JSON.stringify(await session.client.callTool({ name: 'export_meeting', arguments: { meeting_id: m.id } }));
        text += JSON.stringify(await session.client.readResource({ uri: `syntheo://meetings/${m.id}` }));
      }
      text += JSON.stringify(await session.client.callTool({ name: 'search_transcripts', arguments: { query: 'budget' } }));
      text += JSON.stringify(await session.client.callTool({ name: 'get_meeting', arguments: { meeting_id: 'mtg_missing' } }).catch((e: Error) => e.message));
    } finally {
      await session.close();
    }
    text += session.stderr();
    expect(text).toContain('Echo json-401');
    expect(session.stderr()).toContain('"level":20');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(URL_PASSWORD);
  });

  it('is in no output of the CLI: doctor, config, imports, meetings export, proposals', async () => {
    const exported = join(dir, 'export.json');
    const ids = db.sqlite.prepare('SELECT id FROM meetings').pluck().all() as string[];
    const commands = [
      ['doctor'],
      ['--json', 'doctor'],
      ['config', 'list'],
      ['--json', 'config', 'list'],
      ['config', 'get', 'llm.url'],
      ['config', 'set', 'llm.api_key', KEY],
      ['config', 'set', 'transcription.api_key', KEY],
      ['config', 'set', 'transcription.url', `http://user:${URL_PASSWORD}@127.0.0.1:9/`],
      ['imports', 'list'],
      ['--json', 'imports', 'list'],
      ...jobs.map((id) => ['imports', 'show', id]),
      ['meetings', 'list'],
      ['meetings', 'export', ...ids],
      ['meetings', 'export', ...ids, '--output', exported],
      ['proposals', 'list', '--status', 'all'],
    ];
    let shown = '';
    for (const args of commands) {
      const r = await run(['--db', db.path, '--log-level', 'trace', ...args], { env: SECRETS_ENV });
      shown += `${r.stdout}${r.stderr}`;
      expect(`${r.stdout}${r.stderr}`, args.join(' ')).not.toContain(KEY);
      expect(`${r.stdout}${r.stderr}`, args.join(' ')).not.toContain(URL_PASSWORD);
    }
    expect(shown).toMatch(/is a secret and is never stored in the database/);
    expect(shown).toMatch(/transcription.url contains a password .* Give this URL in the environment instead \(SYNTHEO_TRANSCRIPTION_URL\)/);
    expect(shown).toContain('http://user:****@127.0.0.1:');
    expect(shown).toMatch(/API key set/);
    for (const file of readdirSync(dir).filter((f) => f.startsWith('export'))) expect(readFileSync(join(dir, file), 'utf8')).not.toContain(KEY);
  }, 60_000);

  it('is nowhere in the database file, its WAL or its shared memory', () => {
    db.sqlite.pragma('wal_checkpoint(PASSIVE)');
    const files = readdirSync(dir).filter((f) => f.startsWith('syntheo.db'));
    expect(files).toContain('syntheo.db');
    for (const file of files) {
      const bytes = readFileSync(join(dir, file));
      expect(bytes.includes(Buffer.from(KEY)), file).toBe(false);
      expect(bytes.includes(Buffer.from(KEY, 'utf16le')), file).toBe(false);
    }
    expect(db.sqlite.prepare("SELECT count(*) FROM settings WHERE key LIKE '%api_key%'").pluck().get()).toBe(0);
  });
});
