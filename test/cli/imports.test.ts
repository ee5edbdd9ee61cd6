import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fakeWorker, run, runJson, start, writeWav } from './cli.js';
import { openTestDb } from '../support/db.js';
import { ensureFolderPath } from '../../src/db/queries/folders.js';

let db: ReturnType<typeof openTestDb>;
let audioDir: string;
beforeEach(() => {
  db = openTestDb();
  audioDir = join(db.dir, 'recordings');
  mkdirSync(audioDir);
});
afterEach(() => db.cleanup());

const counts = () => ({
  meetings: (db.sqlite.prepare('SELECT count(*) AS n FROM meetings').get() as { n: number }).n,
  jobs: (db.sqlite.prepare('SELECT count(*) AS n FROM recording_imports').get() as { n: number }).n,
});

describe('imports add', () => {
  it('refuses a file that is not audio: exit 1, clear message, nothing enqueued', async () => {
    fakeWorker(db.sqlite);
    writeFileSync(join(audioDir, 'notes.wav'), 'these are meeting notes, not audio\n');
    const r = await run(['--db', db.path, 'imports', 'add', 'recordings/notes.wav'], { cwd: db.dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `syntheo: The file "${join(audioDir, 'notes.wav')}" is not a supported recording: it looks like text. Syntheo imports WAV, MP3, OGG, MP4, M4A, FLAC, WebM or AAC files, any video or audio file ffmpeg reads (MKV, MOV, AVI, MPEG-TS, WMA ...), and transcripts (WebVTT, SRT, Whisper JSON, "Speaker: text" lines), detected from their content, not their name.\n`,
    );
    const missing = await run(['--db', db.path, 'imports', 'add', 'recordings/gone.m4a'], { cwd: db.dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`syntheo: The file "${join(audioDir, 'gone.m4a')}" does not exist (or is a symlink to a missing file). Check the path.\n`);
    const dir = await runJson(db.path, ['imports', 'add', audioDir]);
    expect(dir.body.error).toMatchObject({ code: 'invalid', exit_code: 1, message: expect.stringContaining('is a directory') });
    expect(counts()).toEqual({ meetings: 0, jobs: 0 });
  });

  it('refuses when no worker is running, saying how to start one', async () => {
    writeWav(join(audioDir, 'standup.wav'));
    fakeWorker(db.sqlite, 60_000);
    const r = await run(['--db', db.path, 'imports', 'add', join(audioDir, 'standup.wav')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'syntheo: The Syntheo app is not running, so nothing would process this recording. Start the worker with `syntheo-worker` (or `syntheo worker`), then run the same command again.\n',
    );
    expect(counts()).toEqual({ meetings: 0, jobs: 0 });
  });

  it('queues a WAV given relative to the working directory; show and list report it', async () => {
    writeWav(join(audioDir, 'standup.wav'));
    ensureFolderPath(db.sqlite, 'Team/Standups');
    fakeWorker(db.sqlite);
    const r = await runJson(db.path, ['imports', 'add', 'recordings/standup.wav', '--folder', 'Team/Standups', '--key', 'standup-1'], { cwd: db.dir });
    expect(r.code).toBe(0);
    const job = r.body.data;
    expect(job).toMatchObject({
      processing_status: 'queued',
      summary_status: 'pending',
      error: null,
      file_path: join(audioDir, 'standup.wav'),
      file_format: 'wav',
      title: 'standup',
      request_key: 'standup-1',
      progress: null,
      replayed: false,
    });
    expect(job.job_id).toMatch(/^job_/);
    expect(job.meeting_id).toMatch(/^mtg_/);

    const meeting = await runJson(db.path, ['meetings', 'get', job.meeting_id]);
    expect(meeting.body.data).toMatchObject({ title: 'standup', folder_path: 'Team/Standups', processing_status: 'queued' });

    const show = await run(['--db', db.path, 'imports', 'show', job.job_id]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`Job:         ${job.job_id}\nStatus:      queued\nSummary:     pending\nMeeting:     standup (${job.meeting_id})\nFile:        ${join(audioDir, 'standup.wav')} (wav)\nDuration:    not read yet\nRequest key: standup-1\n`);

    const again = await run(['--db', db.path, 'imports', 'add', join(audioDir, 'standup.wav'), '--key', 'standup-1']);
    expect(again.stdout).toContain(`--key standup-1 was used before: ${job.job_id} for "standup" (${job.meeting_id}) is queued; nothing new was queued.`);
    expect(counts()).toEqual({ meetings: 1, jobs: 1 });

    writeWav(join(audioDir, 'retro.wav'));
    const second = await run(['--db', db.path, 'imports', 'add', 'recordings/retro.wav', '--title', 'Sprint retro'], { cwd: db.dir });
    expect(second.stdout).toMatch(/^Queued job_\w+: meeting "Sprint retro" \(mtg_\w+\) from .*\/recordings\/retro\.wav \(wav\)\.\n/);
    db.sqlite.prepare("UPDATE recording_imports SET status = 'failed', error = 'Transcription server answered 400: unsupported audio' WHERE id = ?").run(job.job_id);

    const list = await run(['--db', db.path, 'imports', 'list']);
    const rows = list.stdout.split('\n');
    expect(rows[0]).toMatch(/^JOB\s+STATUS\s+SUMMARY\s+TITLE\s+MEETING\s+CREATED\s+ERROR$/);
    expect(rows[1]).toMatch(/^job_\w+\s+queued\s+pending\s+Sprint retro\s+mtg_\w+\s+(just now|\d+ s ago)$/);
    expect(rows[2]).toMatch(new RegExp(`^${job.job_id}\\s+failed\\s+pending\\s+standup\\s+${job.meeting_id}\\s+(just now|\\d+ s ago)\\s+Transcription server answered 400: unsupported audio$`));
    const failed = await runJson(db.path, ['imports', 'list', '--status', 'failed']);
    expect(failed.body.data.map((j: { job_id: string }) => j.job_id)).toEqual([job.job_id]);
    expect(failed.body.pagination).toEqual({ offset: 0, limit: 20, returned: 1, total: 1 });
    const active = await runJson(db.path, ['imports', 'list', '--status', 'active', '--limit', '1']);
    expect(active.body.data.map((j: { title: string }) => j.title)).toEqual(['Sprint retro']);
  });

  it('refuses content imported before: exit 1 naming the meeting and job, nothing queued; --allow-duplicate imports it', async () => {
    fakeWorker(db.sqlite);
    const original = writeWav(join(audioDir, 'weekly.wav'));
    const first = await runJson(db.path, ['imports', 'add', original]);
    expect(first.code).toBe(0);
    const copy = join(audioDir, 'weekly-copy.wav');
    copyFileSync(original, copy);
    const before = counts();
    const again = await run(['--db', db.path, 'imports', 'add', copy]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`has the same content as an earlier import: meeting "weekly" (${first.body.data.meeting_id}), job ${first.body.data.job_id}, queued. Nothing was queued.`);
    expect(counts()).toEqual(before);
    const forced = await run(['--db', db.path, 'imports', 'add', copy, '--allow-duplicate']);
    expect(forced.code).toBe(0);
    expect(counts().jobs).toBe(before.jobs + 1);
  });

  it('an unknown folder exits 2; an unknown job exits 2', async () => {
    writeWav(join(audioDir, 'a.wav'));
    fakeWorker(db.sqlite);
    const folder = await run(['--db', db.path, 'imports', 'add', join(audioDir, 'a.wav'), '--folder', 'Nope']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toContain('Folder "Nope" does not exist. Use `syntheo folders list`');
    const job = await run(['--db', db.path, 'imports', 'show', 'job_nope']);
    expect(job.code).toBe(2);
    expect(job.stderr).toBe('syntheo: Import job "job_nope" does not exist. Use the job ID printed by `syntheo imports add` (see `syntheo imports list`).\n');
    expect(counts()).toEqual({ meetings: 0, jobs: 0 });
  });
});

describe('imports add --wait (not a terminal)', () => {
  /** Waits for the job the CLI enqueued, then plays the worker's part by updating its row. */
  async function driveJob(steps: [string, Record<string, unknown>][]): Promise<void> {
    let id: string | undefined;
    for (let i = 0; i < 100 && !id; i++) {
      id = (db.sqlite.prepare('SELECT id FROM recording_imports').get() as { id: string } | undefined)?.id;
      if (!id) await sleep(50);
    }
    if (!id) throw new Error('the CLI never enqueued a job');
    for (const [status, extra] of steps) {
      await sleep(700);
      // The worker's heartbeat, kept fresh as a running worker does.
      db.sqlite.prepare('UPDATE workers SET heartbeat_at = ?').run(new Date().toISOString());
      const sets = ['status = ?', ...Object.keys(extra).map((k) => `${k} = ?`)];
      db.sqlite.prepare(`UPDATE recording_imports SET ${sets.join(', ')} WHERE id = ?`).run(status, ...Object.values(extra), id);
    }
  }

  it('prints one line per state change and exits 0 when done', async () => {
    writeWav(join(audioDir, 'call.wav'));
    fakeWorker(db.sqlite);
    const cli = start(['--db', db.path, 'imports', 'add', 'recordings/call.wav', '--wait'], { cwd: db.dir });
    await driveJob([
      ['importing', {}],
      ['transcribing', { chunks_total: 3, chunks_done: 1 }],
      ['transcribing', { chunks_done: 3 }],
      ['done', { summary_status: 'skipped_no_model', finished_at: new Date().toISOString() }],
    ]);
    const r = await cli.result;
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 5).map((l) => l.replace(/^\[\d+:\d\d\] /, ''))).toEqual(['queued', 'importing', 'transcribing  chunks 1/3', 'transcribing  chunks 3/3', 'done']);
    expect(lines[0]).toMatch(/^\[0:\d\d\] queued$/);
    expect(lines[5]).toMatch(/^Done in 0:\d\d: "call" \(mtg_\w+\), 0 words, summary skipped_no_model\.$/);
    expect(r.stderr).toBe('');
  });

  it('exits 1 and prints the job error when the job fails', async () => {
    writeWav(join(audioDir, 'call.wav'));
    fakeWorker(db.sqlite);
    const cli = start(['--db', db.path, 'imports', 'add', join(audioDir, 'call.wav'), '--wait']);
    await driveJob([
      ['transcribing', {}],
      ['failed', { error: 'Transcription server answered 400: unsupported audio', finished_at: new Date().toISOString() }],
    ]);
    const r = await cli.result;
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n').map((l) => l.replace(/^\[\d+:\d\d\] /, ''))).toEqual(['queued', 'transcribing', 'failed', '']);
    expect(r.stderr).toMatch(/^syntheo: import job_\w+ failed after 0:\d\d: Transcription server answered 400: unsupported audio\n$/);
  });

  it('Ctrl-C stops waiting, not the import (exit 130)', async () => {
    writeWav(join(audioDir, 'call.wav'));
    fakeWorker(db.sqlite);
    const cli = start(['--db', db.path, 'imports', 'add', join(audioDir, 'call.wav'), '--wait']);
    await driveJob([['transcribing', {}]]);
    cli.kill('SIGINT');
    const r = await cli.result;
    expect(r.code).toBe(130);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^Stopped waiting; job_\w+ goes on in the worker\. Follow it with `syntheo imports show job_\w+`\.$/);
    expect(db.sqlite.prepare('SELECT status FROM recording_imports').pluck().get()).toBe('transcribing');
  });

  it('with --json prints only the final envelope', async () => {
    writeWav(join(audioDir, 'call.wav'));
    fakeWorker(db.sqlite);
    const cli = start(['--db', db.path, '--json', 'imports', 'add', join(audioDir, 'call.wav'), '--wait', '--title', 'Call']);
    await driveJob([['done', { summary_status: 'done' }]]);
    const r = await cli.result;
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body).toMatchObject({ schema_version: 1, command: 'imports add', data: { processing_status: 'done', summary_status: 'done', title: 'Call' } });
  });
});
