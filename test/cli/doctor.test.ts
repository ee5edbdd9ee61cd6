import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { HAS_SCRIPT, fakeWorker, run, runInTerminal, runJson } from './cli.js';
import { openTestDb } from '../support/db.js';
import { makeMeeting, makeParticipant, makeSummary, makeTranscript } from '../support/factories.js';
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

describe('doctor: integrity, schema and the search index', () => {
  /** A meeting with a summary, a participant and a transcript, so every search table has rows (3 passages: note, summary, transcript). */
  function fill(): string {
    const id = makeMeeting(db.sqlite, { title: 'Budget review', note: 'Quarterly budget\n' });
    makeSummary(db.sqlite, id, { content: 'The budget is approved.\n' });
    makeParticipant(db.sqlite, id, { name: 'Alice Martin' });
    makeTranscript(db.sqlite, id, { texts: ['the', 'budget', 'is', 'fine'] });
    return id;
  }

  /** Overwrites the FTS5 index pages, as a bad disk or another program could. */
  function damageSearchIndex(): void {
    db.sqlite.unsafeMode(true);
    db.sqlite.prepare('UPDATE search_fts_data SET block = zeroblob(length(block)) WHERE id > 10').run();
    db.sqlite.unsafeMode(false);
  }

  it('a damaged search index: search says to repair it, doctor finds it, --repair-search fixes it', async () => {
    const id = fill();
    damageSearchIndex();
    const search = await run(['--db', db.path, 'search', 'budget']);
    expect(search.code).toBe(1);
    expect(search.stderr).toBe('syntheo: The search index of the database is damaged (the meetings are not). Rebuild it with `syntheo doctor --repair-search`, then try again.\n');
    const doctor = await run(['--db', db.path, 'doctor']);
    expect(doctor.code).toBe(1);
    expect(line(doctor.stdout, 'integrity')).toBe('✗ integrity     integrity_check found problems:');
    expect(doctor.stdout).toContain('fts5: corruption found reading blob');
    expect(doctor.stdout).toContain('They are in the search index. Rebuild it with `syntheo doctor --repair-search` (the meetings are not changed).');
    expect(line(doctor.stdout, 'search')).toBe('✗ search        damaged search index: search_fts');

    fakeWorker(db.sqlite);
    writeSetting(db.sqlite, 'transcription.url', serverUrl);
    const repaired = await run(['--db', db.path, 'doctor', '--repair-search']);
    // A line as each step begins (not a terminal), then what was rebuilt.
    expect(repaired.stdout.split('\n').slice(0, 4)).toEqual([
      'Rebuilding the search index: the filters and title words of 1 meeting…',
      'Rebuilding the search index: the passages of 1 transcript…',
      'Rebuilding the search index: the counts and names…',
      'Rebuilt the search index: 3 passages, 1 meeting title, 1 participant.',
    ]);
    expect(line(repaired.stdout, 'integrity')).toBe('✓ integrity     integrity_check: ok');
    expect(line(repaired.stdout, 'search')).toBe('✓ search        the search index matches the meetings');
    expect(repaired.code).toBe(0);
    const found = await runJson(db.path, ['search', 'budget']);
    expect(new Set(found.body.data.map((h: { meeting_id: string }) => h.meeting_id))).toEqual(new Set([id]));
    expect(found.body.data.map((h: { kind: string }) => h.kind).sort()).toEqual(['note', 'summary', 'transcript']);
    const listed = await runJson(db.path, ['meetings', 'list', '--participant', 'alice']);
    expect(listed.body.data.map((m: { id: string }) => m.id)).toEqual([id]);
  });

  it.skipIf(!HAS_SCRIPT)('on a terminal, --repair-search redraws one line with the step and how far into it, and clears it', async () => {
    fill();
    const r = await runInTerminal(['--db', db.path, 'doctor', '--repair-search']);
    const redraws = r.stdout.split('\r\x1b[2K');
    expect(redraws).toContain('Rebuilding the search index: the filters and title words of 1 meeting (0%)');
    expect(redraws).toContain('Rebuilding the search index: the passages of 1 transcript (100%)');
    expect(redraws).toContain('Rebuilding the search index: the counts and names (100%)');
    // The line cleared before the result: it does not stay in front of it.
    expect(redraws.find((l) => l.startsWith('Rebuilt the search index'))).toMatch(/^Rebuilt the search index: 3 passages, 1 meeting title, 1 participant\.\r?\n/);
  });

  it('missing search tables and triggers are named, and --repair-search makes them again', async () => {
    const id = fill();
    db.sqlite.exec('DROP TABLE participant_handles_fts; DROP TRIGGER summaries_search_ai');
    const doctor = await run(['--db', db.path, 'doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain(
      '✗ schema        missing from the database:\n                table participant_handles_fts\n                trigger summaries_search_ai\n                They belong to the search index.',
    );
    // A fragment across two words is matched in participant_handles_fts (one word is matched in participant_words).
    const listed = await run(['--db', db.path, 'meetings', 'list', '--participant', 'alice m']);
    expect(listed.stderr).toBe('syntheo: The database lacks part of the schema Syntheo needs. Run `syntheo doctor` to see what is missing and how to repair it.\n');
    const repaired = await run(['--db', db.path, 'doctor', '--repair-search']);
    expect(repaired.stdout.split('\n')[3]).toBe('Rebuilt the search index: 3 passages, 1 meeting title, 1 participant (recreated table participant_handles_fts, trigger summaries_search_ai).');
    expect(line(repaired.stdout, 'schema')).toBe('✓ schema        every table, index and trigger of the migrations is there');
    expect((await runJson(db.path, ['meetings', 'list', '--participant', 'alice m'])).body.data.map((m: { id: string }) => m.id)).toEqual([id]);
  });

  it('a missing table of the meetings: named, with the way out, and not "database ok" alone', async () => {
    const id = fill();
    db.sqlite.exec('DROP TABLE action_items');
    const doctor = await runJson(db.path, ['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.body.data.checks.find((c: { name: string }) => c.name === 'schema')).toEqual({
      name: 'schema',
      level: 'fail',
      message: 'missing from the database:\nindex action_items_meeting_idx\ntable action_items',
      hint: 'Restore the database from a backup: a table that is gone took its rows with it, and Syntheo cannot make it again.',
    });
    const get = await run(['--db', db.path, 'meetings', 'get', id]);
    expect(get.code).toBe(1);
    expect(get.stderr).toContain('Run `syntheo doctor` to see what is missing');
  });
});
