// import_recording and get_recording_import: the same code path as `syntheo imports add`, a live worker
// simulated by a fresh heartbeat row, request_key replays (also across two racing processes), errors.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { ensureFolderPath } from '../../src/db/queries/folders.js';
import { openTestDb } from '../support/db.js';
import { serve, type Served } from '../support/engine.js';
import { call, callError, connectV2 } from '../support/mcp.js';
import { writeWav } from '../support/wav.js';


let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;
let served: Served;
let audio: string;

async function heartbeat(): Promise<void> {
  const now = new Date().toISOString();
  await served.sql(
    `INSERT INTO workers (id, hostname, pid, version, concurrency, started_at, heartbeat_at) VALUES ('wrk_test', 'test-host', ?, '0.1.0', 2, ?, ?)
     ON CONFLICT(id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, stopped_at = NULL`,
    process.pid,
    now,
    now,
  );
}

async function stopWorker(): Promise<void> {
  await served.sql("UPDATE workers SET stopped_at = ? WHERE id = 'wrk_test'", new Date().toISOString());
}

const jobsWithKey = async (key: string) => (await served.sql<{ n: number }>('SELECT count(*) AS n FROM recording_imports WHERE request_key = ?', key))[0]!.n;
const meetingCount = async () => (await served.sql<{ n: number }>('SELECT count(*) AS n FROM meetings'))[0]!.n;

beforeAll(async () => {
  db = openTestDb();
  mkdirSync(join(db.dir, 'audio'));
  audio = writeWav(join(db.dir, 'audio', 'standup-2026.wav'));
  ensureFolderPath(db.sqlite, 'Projets/Audio');
  served = await serve(db.path);
  ({ client, close } = await connectV2(served.location, 'modern'));
});

afterAll(async () => {
  await close?.();
  db?.cleanup();
});

// New content for each test: the same content imported twice is refused as a duplicate.
beforeEach(async () => {
  await heartbeat();
  writeWav(audio);
});

describe('import_recording', () => {
  it('fails with -32603 naming syntheo-worker when the app is closed, and creates nothing', async () => {
    await stopWorker();
    const before = await meetingCount();
    const error = await callError(client, 'import_recording', { file_path: audio });
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('syntheo-worker');
    expect(await meetingCount()).toBe(before);
    // A heartbeat older than the freshness window counts as closed too.
    await served.sql("UPDATE workers SET stopped_at = NULL, heartbeat_at = ? WHERE id = 'wrk_test'", new Date(Date.now() - 60_000).toISOString());
    expect((await callError(client, 'import_recording', { file_path: audio })).message).toContain('syntheo-worker');
  });

  it('creates the meeting and a queued job, titled after the file', async () => {
    const job = await call(client, 'import_recording', { file_path: audio });
    expect(job).toMatchObject({
      job_id: expect.stringMatching(/^job_/),
      meeting_id: expect.stringMatching(/^mtg_/),
      processing_status: 'queued',
      summary_status: 'pending',
      error: null,
      file_path: audio,
      file_format: 'wav',
      title: 'standup-2026',
      request_key: null,
    });
    expect(await call(client, 'get_recording_import', { job_id: job.job_id })).toEqual(job);
    const meeting = await call(client, 'get_meeting', { meeting_id: job.meeting_id });
    expect(meeting).toMatchObject({ title: 'standup-2026', processing_status: 'queued', recording_import: { job_id: job.job_id, processing_status: 'queued' } });
    const listed = (await call(client, 'list_meetings', { query: job.meeting_id })).meetings;
    expect(listed).toEqual([{ id: job.meeting_id, title: 'standup-2026', started_at: expect.any(String), folder_path: null, processing_status: 'queued' }]);
  });

  it('takes a title and an existing folder; an unknown folder is -32602', async () => {
    const job = await call(client, 'import_recording', { file_path: audio, title: 'Client call', folder_path: 'Projets/Audio' });
    expect((await call(client, 'get_meeting', { meeting_id: job.meeting_id })).folder_path).toBe('Projets/Audio');
    expect(job.title).toBe('Client call');
    expect(await callError(client, 'import_recording', { file_path: audio, folder_path: 'No/Such/Folder' })).toEqual({
      code: -32602,
      message: expect.stringContaining('Use list_folders'),
    });
  });

  it('returns the original job for the same request_key, even after it failed and with the app closed', async () => {
    const first = await call(client, 'import_recording', { file_path: audio, request_key: 'retry-me' });
    await served.sql("UPDATE recording_imports SET status = 'failed', error = 'Transcription server refused the file', summary_status = 'failed' WHERE id = ?", first.job_id);
    const again = await call(client, 'import_recording', { file_path: audio, request_key: 'retry-me' });
    expect(again).toMatchObject({ job_id: first.job_id, meeting_id: first.meeting_id, processing_status: 'failed', error: 'Transcription server refused the file' });
    await stopWorker();
    expect((await call(client, 'import_recording', { file_path: audio, request_key: 'retry-me' })).job_id).toBe(first.job_id);
    expect(await jobsWithKey('retry-me')).toBe(1);
  });

  it('answers -32603 for the same request_key with another file', async () => {
    const other = writeWav(join(db.dir, 'audio', 'other.wav'));
    await call(client, 'import_recording', { file_path: audio, request_key: 'one-file-only' });
    const error = await callError(client, 'import_recording', { file_path: other, request_key: 'one-file-only' });
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('was already used for another file');
    expect(await jobsWithKey('one-file-only')).toBe(1);
  });

  it('gives one job when two syntheo mcp processes race with the same request_key', async () => {
    const second = await connectV2(served.location, 'legacy');
    try {
      const keys = ['race-1', 'race-2', 'race-3', 'race-4'];
      const files = keys.map((k) => writeWav(join(db.dir, 'audio', `${k}.wav`)));
      const results = await Promise.all(
        keys.flatMap((request_key, i) => [
          call(client, 'import_recording', { file_path: files[i], request_key }),
          call(second.client, 'import_recording', { file_path: files[i], request_key }),
        ]),
      );
      for (let i = 0; i < keys.length; i++) {
        expect(results[2 * i + 1].job_id).toBe(results[2 * i].job_id);
        expect(await jobsWithKey(keys[i]!)).toBe(1);
      }
    } finally {
      await second.close();
    }
  });

  it('queues content imported before (another path, no key) and names the earlier import in duplicate_of; a reused request_key still returns its job', async () => {
    const first = await call(client, 'import_recording', { file_path: audio, request_key: 'dup-original' });
    expect(first.duplicate_of).toBeUndefined();
    const copy = join(db.dir, 'audio', 'copy-of-standup.wav');
    copyFileSync(audio, copy);
    const second = await call(client, 'import_recording', { file_path: copy });
    expect(second.job_id).not.toBe(first.job_id);
    expect(second.duplicate_of).toEqual({ job_id: first.job_id, meeting_id: first.meeting_id, title: 'standup-2026', processing_status: 'queued' });
    const replay = await call(client, 'import_recording', { file_path: audio, request_key: 'dup-original' });
    expect(replay.job_id).toBe(first.job_id);
    expect(replay.duplicate_of).toBeUndefined();
    // A failed import does not count.
    await served.sql("UPDATE recording_imports SET status = 'failed' WHERE content_sha256 = (SELECT content_sha256 FROM recording_imports WHERE id = ?)", first.job_id);
    expect((await call(client, 'import_recording', { file_path: copy })).duplicate_of).toBeUndefined();
  });

  it('validates request_key (1 to 200 bytes) and the file, as internal errors that say why', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ file_path: audio, request_key: '' }, /request_key must be 1 to 200 bytes/],
      [{ file_path: audio, request_key: 'k'.repeat(201) }, /got 201 bytes/],
      [{ file_path: audio, request_key: 'é'.repeat(101) }, /got 202 bytes/],
      [{ file_path: 'audio/standup-2026.wav' }, /is relative/],
      [{ file_path: join(db.dir, 'audio', 'missing.wav') }, /does not exist/],
      [{ file_path: join(db.dir, 'audio') }, /is a directory/],
      [{ file_path: writeText(join(db.dir, 'audio', 'empty.wav'), '') }, /is empty \(0 bytes\)/],
      [{ file_path: writeText(join(db.dir, 'audio', 'notes.wav'), 'not audio at all, just notes\n'.repeat(20)) }, /not a supported recording: it looks like text/],
    ];
    for (const [args, message] of cases) expect(await callError(client, 'import_recording', args), JSON.stringify(args).slice(0, 80)).toEqual({ code: -32603, message: expect.stringMatching(message) });
    expect((await call(client, 'import_recording', { file_path: audio, request_key: 'é'.repeat(100) })).request_key).toBe('é'.repeat(100));
  });
});

describe('get_recording_import', () => {
  it('reads the durable state and answers -32602 for an unknown job', async () => {
    const job = await call(client, 'import_recording', { file_path: audio });
    await served.sql("UPDATE recording_imports SET status = 'transcribing', chunks_done = 2, chunks_total = 5 WHERE id = ?", job.job_id);
    expect(await call(client, 'get_recording_import', { job_id: job.job_id })).toMatchObject({ processing_status: 'transcribing', progress: { chunks_done: 2, chunks_total: 5 } });
    expect(await callError(client, 'get_recording_import', { job_id: 'job_nope' })).toEqual({ code: -32602, message: expect.stringContaining('import_recording') });
  });
});

function writeText(path: string, text: string): string {
  writeFileSync(path, text);
  return path;
}
