import { execFile } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb } from '../support/db.js';
import { serve, type Served } from '../support/engine.js';
import { CLI, cleanEnv, startWorker, type WorkerProcess } from '../support/worker-process.js';

// A watched folder (`imports.watch`) served by a real worker process: files written slowly in pieces,
// downloads finishing (.part renamed), renames, copies, deletions, the worker killed and restarted, the
// folder removed and created again, a Zoom recording folder. Transcript files keep it fast (no
// transcription server); each meeting must appear exactly once, with all its words.

const run = promisify(execFile);
const WATCH_ENV = { SYNTHEO_WATCH_STABLE_MS: '1200', SYNTHEO_WATCH_RESCAN_MS: '300', TZ: 'UTC' };
let db: ReturnType<typeof openTestDb>;
let served: Served;
let dir: string;
let worker: WorkerProcess;

/** "Speaker: text" lines unlike any other test's: `lines` lines of 5 words. */
const transcript = (tag: string, lines: number): string =>
  Array.from({ length: lines }, (_, i) => `${i % 2 ? 'José Pérez' : 'Zoë Martin'}: ${tag} line ${i} says hello\n`).join('');

interface Row {
  title: string;
  status: string;
  words: number;
  file_path: string;
  started_at: string;
}
const rows = (): Promise<Row[]> =>
  served.sql<Row>(
    `SELECT m.title, j.status, coalesce(t.word_count, 0) AS words, j.file_path, m.started_at FROM recording_imports j JOIN meetings m ON m.id = j.meeting_id
      LEFT JOIN transcripts t ON t.meeting_id = m.id ORDER BY j.created_at`,
  );

async function until<T>(what: string, get: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await rows())}`);
    await sleep(100);
  }
}
const doneTitled = (title: string) => until(`"${title}" done`, async () => (await rows()).find((r) => r.title === title && r.status === 'done'));

beforeAll(async () => {
  db = openTestDb();
  served = await serve(db.path);
  dir = join(db.dir, 'Watched Recordings');
  // The folder does not exist yet when the setting is made and the worker starts.
  const set = await run(process.execPath, [CLI, 'config', 'set', 'imports.watch', `${dir}, ${join(db.dir, 'also-missing')}`, '--db', served.location], { env: cleanEnv() });
  expect(set.stdout).toContain('imports.watch');
  worker = await startWorker(served.location, { env: WATCH_ENV });
});

afterAll(async () => {
  await worker?.stop();
  db?.cleanup();
});

describe('watched folders', () => {
  it('imports.watch takes absolute paths only, and says so', async () => {
    const bad = await run(process.execPath, [CLI, 'config', 'set', 'imports.watch', '/ok,Recordings/Zoom', '--db', served.location], { env: cleanEnv() }).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 1 });
    expect((bad as { stderr: string }).stderr).toContain('imports.watch: "Recordings/Zoom" is not an absolute path');
  });

  it('imports a file written slowly in pieces once, complete', { timeout: 60_000 }, async () => {
    mkdirSync(dir);
    const path = join(dir, 'Standup notes.txt');
    const text = transcript('slow', 40);
    const parts = text.match(/[^]{1,600}/g)!;
    for (const part of parts) {
      appendFileSync(path, part);
      await sleep(400); // shorter than the stability window: never imported half-written
    }
    const row = await doneTitled('Standup notes');
    expect(row.words).toBe(40 * 5);
    expect(await rows()).toHaveLength(1);
  });

  it('ignores .part, hidden and .tmp files; imports the download once renamed', { timeout: 60_000 }, async () => {
    writeFileSync(join(dir, 'Retro.txt.part'), transcript('download', 10));
    writeFileSync(join(dir, '.hidden.txt'), transcript('hidden', 10));
    writeFileSync(join(dir, 'scratch.tmp'), transcript('tmp', 10));
    await sleep(2_500);
    expect(await rows()).toHaveLength(1);
    renameSync(join(dir, 'Retro.txt.part'), join(dir, 'Retro.txt'));
    await doneTitled('Retro');
    expect(await rows()).toHaveLength(2);
  });

  it('a renamed file, a copy and a deleted file make no new meeting', { timeout: 60_000 }, async () => {
    renameSync(join(dir, 'Standup notes.txt'), join(dir, 'Standup notes (renamed).txt'));
    copyFileSync(join(dir, 'Retro.txt'), join(dir, 'Retro copy.txt'));
    rmSync(join(dir, 'Standup notes (renamed).txt'));
    copyFileSync(join(dir, 'Retro.txt'), join(dir, 'Retro copy 2.txt'));
    await worker.waitForLog((l) => l.msg === 'watched file skipped: the same content was imported before' && String(l.file).endsWith('Retro copy 2.txt'), 20_000);
    expect((await rows()).map((r) => r.title)).toEqual(['Standup notes', 'Retro']);
  });

  it('after the worker is killed and restarted: files seen before stay imported once; a file added meanwhile is imported', { timeout: 60_000 }, async () => {
    await worker.stop('SIGKILL');
    writeFileSync(join(dir, 'While down.txt'), transcript('offline', 6));
    worker = await startWorker(served.location, { env: WATCH_ENV });
    await doneTitled('While down');
    await sleep(2_500);
    expect((await rows()).map((r) => r.title)).toEqual(['Standup notes', 'Retro', 'While down']);
  });

  it('survives the folder being removed and created again', { timeout: 60_000 }, async () => {
    rmSync(dir, { recursive: true });
    await sleep(1_000);
    mkdirSync(dir);
    writeFileSync(join(dir, 'After.txt'), transcript('after', 6));
    await doneTitled('After');
    expect(await rows()).toHaveLength(4);
  });

  it('a Zoom local-recording folder becomes one meeting: its topic, its time, its transcript', { timeout: 60_000 }, async () => {
    const zoom = join(dir, '2026-03-04 09.30.00 Quarterly planning 84512345678');
    mkdirSync(zoom);
    writeFileSync(join(zoom, 'playback.m3u'), '#EXTM3U\n');
    writeFileSync(join(zoom, 'meeting_saved_chat.txt'), '09:31:02 From Zoë Martin to Everyone: hi\n');
    writeFileSync(
      join(zoom, 'closed_caption_transcript.vtt'),
      'WEBVTT\n\n1\n00:00:00.000 --> 00:00:04.000\nZoë Martin: The quarterly plan is ready for review.\n\n2\n00:00:04.000 --> 00:00:08.000\nJosé Pérez: Great, let us go through it now.\n',
    );
    const row = await doneTitled('Quarterly planning');
    expect(row.started_at).toBe('2026-03-04T09:30:00.000Z');
    expect(row.file_path).toBe(join(zoom, 'closed_caption_transcript.vtt'));
    expect(row.words).toBe(14);
    // Another transcript saved later into the same folder is not a second meeting.
    writeFileSync(join(zoom, 'audio_transcript.vtt'), 'WEBVTT\n\n1\n00:00:00.000 --> 00:00:02.000\nZoë Martin: later file\n');
    await sleep(2_500);
    expect((await rows()).filter((r) => r.title === 'Quarterly planning')).toHaveLength(1);
    expect(await rows()).toHaveLength(5);
  });
});
