import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fakeWorker, run, runJson } from './cli.js';
import { openTestDb } from '../support/db.js';
import { writeSetting } from '../../src/db/queries/settings.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from '../../src/package.js';

const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
const schemaLine = `schema ${journal.entries.length}/${journal.entries.length} migrations (latest ${journal.entries.at(-1)!.tag})`;

// Stand-ins for the transcription and LLM servers: real HTTP on 127.0.0.1.
let server: Server;
let serverUrl: string;
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
// Accepts connections and never answers: a hung server.
let silent: TcpServer;
let silentUrl: string;
const sockets: Socket[] = [];
let closedUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(req.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json' }).end('{"data":[]}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  silent = createTcpServer((s) => sockets.push(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const closed = createTcpServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((r) => closed.close(() => r()));
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
  await new Promise<void>((r) => silent.close(() => r()));
});

let db: ReturnType<typeof openTestDb>;
beforeEach(() => {
  db = openTestDb();
  seen.length = 0;
});
afterEach(() => db.cleanup());

const line = (out: string, name: string) => out.split('\n').find((l) => l.slice(2, 16).trim() === name);

describe('doctor', () => {
  it('ready with a live worker and a reachable transcription server (exit 0)', async () => {
    fakeWorker(db.sqlite, 6_000);
    writeSetting(db.sqlite, 'transcription.url', serverUrl);
    const r = await run(['--db', db.path, 'doctor']);
    expect(r.code).toBe(0);
    expect(line(r.stdout, 'database')).toBe(`✓ database      ${db.path}: ${schemaLine}; 0 meetings, 0 folders, 0 pending proposals, 0 imports in progress`);
    expect(line(r.stdout, 'worker')).toMatch(/^✓ worker        Alive: last heartbeat \d+ s ago \(pid 4242 on testhost, version 0\.1\.0\)$/);
    expect(line(r.stdout, 'transcription')).toMatch(new RegExp(`^✓ transcription ${serverUrl} answers \\(HTTP 200 in \\d+ ms\\); openai API, model whisper-1$`));
    expect(line(r.stdout, 'llm')).toBe('! llm           No LLM server configured (llm.url): imports get a transcript but no summary.');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('Ready.');
    expect(seen.map((s) => s.url)).toEqual(['/v1/models']);
  });

  it('without a worker: exit 1 and says how to start one', async () => {
    writeSetting(db.sqlite, 'transcription.url', serverUrl);
    const r = await run(['--db', db.path, 'doctor']);
    expect(r.code).toBe(1);
    expect(line(r.stdout, 'worker')).toBe('✗ worker        No worker is running (none has a heartbeat in this database).');
    expect(r.stdout).toContain('Start it with `syntheo-worker`');
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('Not ready: fix the ✗ lines above.');
  });

  it('a worker whose heartbeat is stale counts as not running', async () => {
    fakeWorker(db.sqlite, 120_000);
    writeSetting(db.sqlite, 'transcription.url', serverUrl);
    const { code, body } = await runJson(db.path, ['doctor']);
    expect(code).toBe(1);
    expect(body.data.ready).toBe(false);
    expect(body.data.worker).toMatchObject({ alive: false, pid: 4242 });
    expect(body.data.checks.find((c: { name: string }) => c.name === 'worker')).toMatchObject({ level: 'fail', message: expect.stringMatching(/^Not running: last heartbeat 2 min ago/) });
  });

  it('no transcription.url, an unreachable one, a hung one: exit 1 each', async () => {
    fakeWorker(db.sqlite);
    const none = await run(['--db', db.path, 'doctor']);
    expect(none.code).toBe(1);
    expect(line(none.stdout, 'transcription')).toBe('✗ transcription No transcription server configured (transcription.url).');

    const refused = await run(['--db', db.path, 'doctor'], { env: { SYNTHEO_TRANSCRIPTION_URL: closedUrl } });
    expect(refused.code).toBe(1);
    expect(line(refused.stdout, 'transcription')).toBe(`✗ transcription ${closedUrl} is unreachable (ECONNREFUSED).`);

    writeSetting(db.sqlite, 'transcription.url', serverUrl);
    const hung = await run(['--db', db.path, 'doctor'], { env: { SYNTHEO_LLM_URL: silentUrl, SYNTHEO_LLM_MODEL: 'm' } });
    expect(hung.code).toBe(1);
    expect(line(hung.stdout, 'transcription')).toMatch(/^✓ transcription/);
    expect(line(hung.stdout, 'llm')).toBe(`✗ llm           ${silentUrl} is unreachable (no answer within 2 s).`);
  });

  it('an LLM without a model is a warning, not a failure; whisper.cpp is probed at its root', async () => {
    fakeWorker(db.sqlite);
    writeSetting(db.sqlite, 'transcription.url', serverUrl);
    writeSetting(db.sqlite, 'transcription.api', 'whisper.cpp');
    writeSetting(db.sqlite, 'llm.url', serverUrl);
    const r = await run(['--db', db.path, 'doctor']);
    expect(r.code).toBe(0);
    expect(line(r.stdout, 'llm')).toMatch(/^! llm           http:\/\/127\.0\.0\.1:\d+ answers \(HTTP 200 in \d+ ms\), but llm\.model is not set: summaries are skipped \(skipped_no_model\)\.$/);
    expect(line(r.stdout, 'transcription')).toMatch(/answers \(HTTP 404 in \d+ ms\); whisper\.cpp API/);
    expect(seen.map((s) => s.url).sort()).toEqual(['/', '/v1/models']);
  });

  it('never prints nor sends the API keys', async () => {
    fakeWorker(db.sqlite);
    const env = { SYNTHEO_TRANSCRIPTION_URL: serverUrl, SYNTHEO_TRANSCRIPTION_API_KEY: 'sk-topsecret-1', SYNTHEO_LLM_URL: serverUrl, SYNTHEO_LLM_MODEL: 'm', SYNTHEO_LLM_API_KEY: 'sk-topsecret-2' };
    const human = await run(['--db', db.path, 'doctor'], { env });
    const json = await run(['--db', db.path, '--json', 'doctor', '--log-level', 'trace'], { env });
    expect(human.code).toBe(0);
    expect(line(human.stdout, 'transcription')).toContain('API key set');
    for (const out of [human.stdout, human.stderr, json.stdout, json.stderr]) expect(out).not.toContain('topsecret');
    expect(seen.every((s) => s.headers.authorization === undefined)).toBe(true);
    expect(JSON.parse(json.stdout).data.transcription).toMatchObject({ reachable: true, status: 200, api_key_set: true });
  });

  it('an invalid setting is reported with where it came from', async () => {
    fakeWorker(db.sqlite);
    const r = await run(['--db', db.path, 'doctor'], { env: { SYNTHEO_WORKER_CONCURRENCY: 'lots' } });
    expect(r.code).toBe(1);
    expect(line(r.stdout, 'config')).toBe('✗ config        worker.concurrency must be a whole number from 1 to 64, got "lots". (from SYNTHEO_WORKER_CONCURRENCY)');
  });
});
