import { spawnSync } from 'node:child_process';
import { copyFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTranscribeServer, type TranscribeServer } from '../../tools/transcribe-server/server.js';
import type { RecordingImport } from '../../src/db/queries/types.js';
import { meetingMarkdown } from '../../src/render/markdown.js';
import type { Store } from '../../src/db/store.js';
import { openTestDb } from '../support/db.js';
import { serve, type Served } from '../support/engine.js';
import { startLlmServer, type LlmServer } from '../support/llm-server.js';
import { PASSAGES, fixturePath } from '../support/speech-fixtures.js';
import { startWorker, waitForImport, type WorkerProcess } from '../support/worker-process.js';
import { needs } from '../support/system-tools.js';

// Whole processes: transcript files and video containers enqueued as import_recording / `imports add`
// do, a spawned worker, the pocketsphinx transcription server (whose log records each upload's size)
// and the loopback LLM server.

const TRANSCRIPTS = join(import.meta.dirname, '..', 'fixtures', 'transcripts');
const VIDEO = join(import.meta.dirname, '..', 'fixtures', 'video');
// Transcript files need neither; the containers need ffmpeg to extract and pocketsphinx to hear.
const skipMedia = needs('pocketsphinx', 'ffmpeg');

let db: ReturnType<typeof openTestDb>;
let served: Served;
let store: Store;
let speech: TranscribeServer | undefined;
let llm: LlmServer;
let worker: WorkerProcess;
const uploads: number[] = [];

// timing: cues of several words are spread over the cue (estimated); Teams' one-word cues keep the file's times (mixed).
const transcriptCases = [
  { file: 'zoom.vtt', format: 'vtt', speakers: ['Zoë Martin', 'José Pérez'], first: 'Good', timing: 'estimated' },
  { file: 'teams.vtt', format: 'vtt', speakers: ['Zoë Martin'], first: 'Can', timing: 'mixed' },
  { file: 'meet.vtt', format: 'vtt', speakers: [], first: null, timing: 'estimated' },
  { file: 'meeting.srt', format: 'srt', speakers: ['Zoë Martin', 'José Pérez'], first: 'We', timing: 'estimated' },
  // 11 words: under MIN_SUMMARY_WORDS, so its summary is skipped like any short import's.
  { file: 'openai-verbose.json', format: 'verbose_json', speakers: [], first: 'The', summary: 'skipped_too_short', timing: 'measured' },
  { file: 'speakers.txt', format: 'speaker_text', speakers: [], first: null, timing: 'estimated' },
] as const;
const queued = new Map<string, RecordingImport>();

beforeAll(async () => {
  db = openTestDb();
  served = await serve(db.path);
  store = await served.store();
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line.trim() === '') continue;
        const entry = JSON.parse(line) as { msg?: string; bytes?: number };
        if (entry.msg === 'transcribed' && typeof entry.bytes === 'number') uploads.push(entry.bytes);
      }
      done();
    },
  });
  [speech, llm] = await Promise.all([skipMedia ? undefined : startTranscribeServer({ concurrency: 2, logger: pino({ level: 'info' }, sink) }), startLlmServer()]);
  // Transcript imports never call it: without pocketsphinx any URL will do.
  await store.settings.write('transcription.url', speech?.url ?? 'http://127.0.0.1:9');
  await store.settings.write('transcription.model', 'pocketsphinx-en-us');
  await store.settings.write('llm.url', llm.url);
  await store.settings.write('llm.model', 'test-model');
  worker = await startWorker(served.location);
  for (const c of transcriptCases) {
    // A name that does not give the format away: detection goes by the content.
    const file = join(db.dir, `${c.file}.txt`);
    await copyFile(join(TRANSCRIPTS, c.file), file);
    queued.set(c.file, await store.imports.enqueue({ filePath: file }));
  }
}, 60_000);

afterAll(async () => {
  const exit = await worker?.stop();
  expect(exit).toEqual({ code: 0, signal: null });
  await Promise.all([speech?.close(), llm?.close()]);
  db?.cleanup();
});

describe('transcript files', () => {
  it.each(transcriptCases)('$file: detected as $format, no transcription, speakers and timings kept, summarised', { timeout: 60_000 }, async (c) => {
    const first = queued.get(c.file)!;
    expect(first.file_format).toBe(c.format);
    const job = await waitForImport(store, first.job_id);
    const summary = 'summary' in c ? c.summary : 'done';
    expect(job).toMatchObject({ processing_status: 'done', summary_status: summary, error: null });
    const { words, timing } = await store.transcripts.page(job.meeting_id, { offset: 0, limit: 500 });
    expect(words.length).toBeGreaterThan(5);
    if (c.first !== null) expect(words[0]!.text).toBe(c.first);
    for (let i = 1; i < words.length; i++) expect(words[i]!.start_ms!).toBeGreaterThanOrEqual(words[i - 1]!.start_ms!);
    const meeting = await store.meetings.get(job.meeting_id);
    for (const s of c.speakers) expect(meeting.speakers).toContain(s);
    // Whether the word times are the file's own or spread by us over each cue: stored, and said where it is read.
    expect(meeting.transcript?.timing).toBe(c.timing);
    expect(timing).toBe(c.timing === 'measured' ? undefined : c.timing);
    expect(meetingMarkdown(meeting)).toContain(`- Transcript: ${words.length} words${{ measured: '', estimated: ', times estimated', mixed: ', times partly estimated' }[c.timing]} (`);
    expect(meeting.summaries).toHaveLength(summary === 'done' ? 1 : 0);
    expect(job.audio_duration_ms).toBe(Date.parse(meeting.ended_at!) - Date.parse(meeting.started_at));
    // The worker went importing -> summarizing: no stage log line for transcribing on this job.
    const outcome = await worker.waitForLog((l) => l.msg === 'import done' && l.jobId === job.job_id, 5_000);
    expect(outcome).toMatchObject({ transcriptFile: c.format, words: words.length });
    expect(worker.logs.some((l) => l.jobId === job.job_id && l.stage === 'transcribing')).toBe(false);
  });

  it('a malformed transcript is refused at enqueue with its line, and nothing is queued', async () => {
    const [before] = await served.sql<{ n: number }>('SELECT count(*) AS n FROM recording_imports');
    const file = join(db.dir, 'bad.vtt');
    await copyFile(join(TRANSCRIPTS, 'malformed-timestamp.vtt'), file);
    await expect(store.imports.enqueue({ filePath: file })).rejects.toThrow(/line 14: .*timestamp/);
    const [after] = await served.sql<{ n: number }>('SELECT count(*) AS n FROM recording_imports');
    expect(after!.n).toBe(before!.n);
  });
});

describe.skipIf(skipMedia)('video and other containers: the audio track is extracted, then transcribed', () => {
  it('MKV and an MP4 with a 720p video track: done, keywords heard, the upload is the audio only', { timeout: 120_000 }, async () => {
    const mkv = join(db.dir, 'obs-recording.bin');
    await copyFile(join(VIDEO, 'budget.mkv'), mkv);
    const mp4 = join(db.dir, 'screen.mp4');
    const made = spawnSync('ffmpeg', [
      '-v', 'error', '-i', fixturePath('launch', 'wav'), '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30', '-shortest',
      '-c:v', 'mpeg4', '-q:v', '2', '-c:a', 'aac', '-b:a', '128k', '-y', mp4,
    ]);
    expect(made.status, made.stderr.toString()).toBe(0);
    const before = uploads.length;
    const jobs = [await store.imports.enqueue({ filePath: mkv }), await store.imports.enqueue({ filePath: mp4 })];
    expect(jobs.map((j) => j.file_format)).toEqual(['matroska', 'mp4']);
    const passages = [PASSAGES.find((p) => p.name === 'budget')!, PASSAGES.find((p) => p.name === 'launch')!];
    for (const [i, queuedJob] of jobs.entries()) {
      const job = await waitForImport(store, queuedJob.job_id, { timeoutMs: 100_000 });
      expect(job).toMatchObject({ processing_status: 'done', summary_status: 'done', error: null });
      const heard = (await store.transcripts.page(job.meeting_id, { offset: 0, limit: 500 })).words.map((w) => w.text.toLowerCase());
      expect(passages[i]!.keywords.filter((k) => !heard.includes(k))).toEqual([]);
    }
    expect(uploads.length - before).toBe(2);
    const sizes = [(await stat(mkv)).size, (await stat(mp4)).size];
    const sent = uploads.slice(before).sort((a, b) => a - b);
    // About 6 s of 24 kbit/s Opus each: well under the MKV, and under 1/20 of the 720p MP4.
    for (const bytes of sent) expect(bytes).toBeLessThan(40_000);
    expect(sizes[1]!).toBeGreaterThan(20 * 40_000);
  });
});
