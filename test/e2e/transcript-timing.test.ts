import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dbIn, run, runJson } from '../cli/cli.js';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { startFakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { startWorker, waitForImport } from '../support/worker-process.js';

// Whether a transcript's word times were measured (by the server) or spread by us over the text:
// stored by a real worker against a loopback transcription server, shown by the CLI, and kept through
// `meetings export` -> `load` -> `meetings export`.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** One audio import, transcribed by a worker against the fake server with `model`; returns the meeting. */
async function importAudio(model: string) {
  const file = openTestDb();
  cleanups.push(() => file.cleanup());
  const served = await serve(file.path);
  // `path` is the served database: the file, or its PostgreSQL copy.
  const db = { dir: file.dir, path: served.location, store: await served.store() };
  const server = await startFakeTranscriptionServer();
  cleanups.push(() => server.close());
  await db.store.settings.write('transcription.url', server.url);
  await db.store.settings.write('transcription.model', model);
  const worker = await startWorker(db.path);
  cleanups.push(async () => void (await worker.stop()));
  const recording = join(db.dir, 'budget.mp3');
  await copyFile(fixturePath('budget', 'mp3'), recording);
  const queued = await db.store.imports.enqueue({ filePath: recording, title: 'Budget' });
  const job = await waitForImport(db.store, queued.job_id, { timeoutMs: 60_000 });
  expect(job.processing_status, job.error ?? '').toBe('done');
  return { db, meetingId: job.meeting_id, formats: server.requests.map((r) => r.fields?.response_format?.[0]) };
}

describe('the timing of an audio import', () => {
  it("a server answering plain json (no times): the words are spread over the duration, and the transcript says 'estimated'", { timeout: 90_000 }, async () => {
    // gpt-4o-transcribe refuses verbose_json (HTTP 400), as OpenAI's does: the client falls back to json.
    const { db, meetingId, formats } = await importAudio('gpt-4o-transcribe');
    expect(formats).toEqual(['verbose_json', 'json']);
    expect((await db.store.meetings.get(meetingId)).transcript).toMatchObject({ word_count: 18, timing: 'estimated' });
    expect((await db.store.transcripts.page(meetingId, { offset: 0, limit: 5 })).timing).toBe('estimated');
    const shown = await run(['--db', db.path, 'meetings', 'get', meetingId]);
    expect(shown.stdout).toContain('- Transcript: 18 words, times estimated (read it with `syntheo meetings transcript');
  });

  it("a server answering verbose_json with word times: 'measured', and nothing said about it", { timeout: 90_000 }, async () => {
    const { db, meetingId, formats } = await importAudio('whisper-1');
    expect(formats).toEqual(['verbose_json']);
    expect((await db.store.meetings.get(meetingId)).transcript).toMatchObject({ word_count: 18, timing: 'measured' });
    expect((await db.store.transcripts.page(meetingId, { offset: 0, limit: 5 })).timing).toBeUndefined();
    const shown = await run(['--db', db.path, 'meetings', 'get', meetingId]);
    expect(shown.stdout).toContain('- Transcript: 18 words (read it with `syntheo meetings transcript');
  });
});

describe('the timing flag in exports', () => {
  it('export -> load -> export is byte-identical and keeps timing; an export without the flag still loads, as measured', { timeout: 90_000 }, async () => {
    const { db, meetingId } = await importAudio('gpt-4o-transcribe');
    const first = await run(['--db', db.path, 'meetings', 'export', meetingId]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).transcripts[0].timing).toBe('estimated');
    const file = join(db.dir, 'export.json');
    await writeFile(file, first.stdout);
    const restored = dbIn(db.dir, 'restored.db');
    const loaded = await runJson(restored, ['load', file]);
    expect(loaded.code, loaded.stderr).toBe(0);
    const again = await run(['--db', restored, 'meetings', 'export', meetingId]);
    expect(again.stdout).toBe(first.stdout);
    const markdown = await run(['--db', restored, 'meetings', 'export', meetingId, '--format', 'markdown']);
    expect(markdown.stdout).toMatch(/## Transcript \(18 words(, [a-z]+)?, times estimated\)/);

    // An export made before the flag existed: no `timing` key.
    const old = JSON.parse(first.stdout);
    delete old.transcripts[0].timing;
    const oldFile = join(db.dir, 'old.json');
    await writeFile(oldFile, JSON.stringify(old));
    const older = dbIn(db.dir, 'older.db');
    const loadedOld = await runJson(older, ['load', oldFile]);
    expect(loadedOld.code, loadedOld.stderr).toBe(0);
    const shown = await runJson(older, ['meetings', 'get', meetingId]);
    expect(shown.body.data.transcript).toMatchObject({ word_count: 18, timing: 'measured' });
  });
});
