import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTranscribeServer, type TranscribeServer } from '../../tools/transcribe-server/server.js';
import { transcriptText } from '../../src/db/queries/transcripts.js';
import type { RecordingImport } from '../../src/db/queries/types.js';
import type { Store } from '../../src/db/store.js';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { defaultSummary, startLlmServer, type LlmServer } from '../support/llm-server.js';
import { FORMATS, PASSAGES, fixturePath } from '../support/speech-fixtures.js';
import { needs } from '../support/system-tools.js';
import { normalizeWords } from '../support/wer.js';
import { startWorker, waitForImport, type WorkerProcess } from '../support/worker-process.js';

// Whole processes: a job enqueued with enqueueImport (what import_recording and `syntheo imports add`
// call) -> a spawned `syntheo worker` -> the pocketsphinx transcription server -> the loopback LLM
// server -> the durable state a client polls. One import per format, each with a different passage.

const skip = needs('pocketsphinx', 'ffmpeg');
const KEYWORDS = PASSAGES.flatMap((p) => p.keywords);
let db: ReturnType<typeof openTestDb>;
let store: Store;
let location: string;
let speech: TranscribeServer;
let llm: LlmServer;
let worker: WorkerProcess;
const cases = FORMATS.map((format, i) => ({ format, passage: PASSAGES[i % PASSAGES.length]! }));
const queued = new Map<string, RecordingImport>();

beforeAll(async () => {
  db = openTestDb();
  const served = await serve(db.path);
  ({ location } = served);
  store = await served.store();
  [speech, llm] = await Promise.all([
    startTranscribeServer({ concurrency: 2 }),
    // The model's answer quotes the transcript it was given, and makes one action item per keyword it heard.
    startLlmServer({
      reply: (body) => {
        const summary = defaultSummary(body);
        const transcript = body.messages.at(-1)!.content.split('Transcript:')[1] ?? '';
        const heard = KEYWORDS.filter((k) => normalizeWords(transcript).includes(k)).slice(0, 2);
        return JSON.stringify({ ...summary, action_items: heard.map((k) => ({ text: `Follow up on ${k}`, assignee: null, due_date: null })) });
      },
    }),
  ]);
  await store.settings.write('transcription.url', speech.url);
  await store.settings.write('transcription.model', 'pocketsphinx-en-us');
  await store.settings.write('llm.url', llm.url);
  await store.settings.write('llm.model', 'test-model');
  worker = await startWorker(location);
  // All eight queued at once: the worker runs two at a time, as configured by default.
  for (const { format, passage } of cases) {
    // A name that does not give the format away: the worker goes by the sniffed content.
    const file = join(db.dir, `meeting-${format}.recording`);
    await copyFile(fixturePath(passage.name, format), file);
    queued.set(format, await store.imports.enqueue({ filePath: file, title: `Weekly ${format}` }));
  }
});

afterAll(async () => {
  const exit = await worker?.stop();
  expect(exit).toEqual({ code: 0, signal: null });
  await Promise.all([speech?.close(), llm?.close()]);
  db?.cleanup();
});


describe.skipIf(skip)('an import through the worker, per format', () => {
  it.each(cases)('$format ($passage.name): done, keywords with increasing times, summary and action items stored', { timeout: 60_000 }, async ({ format, passage }) => {
    const job = await waitForImport(store, queued.get(format)!.job_id);
    expect(job).toMatchObject({ processing_status: 'done', summary_status: 'done', error: null, file_format: format, progress: null });
    expect(job.audio_duration_ms).toBeGreaterThan(5500);
    expect(job.audio_duration_ms).toBeLessThan(7000);

    const { words } = await store.transcripts.page(job.meeting_id, { offset: 0, limit: 500 });
    // What the LLM was given: the words as plain text (the page's own text carries turn times).
    const text = transcriptText(words);
    const heard = words.map((w) => w.text.toLowerCase());
    expect(passage.keywords.filter((k) => !heard.includes(k))).toEqual([]);
    for (let i = 1; i < words.length; i++) expect(words[i]!.start_ms!).toBeGreaterThan(words[i - 1]!.start_ms!);
    expect(words.at(-1)!.end_ms!).toBeLessThanOrEqual(job.audio_duration_ms!);

    const meeting = await store.meetings.get(job.meeting_id);
    expect(meeting.summaries).toHaveLength(1);
    expect(meeting.summaries[0]!.title).toBe('Summary');
    expect(meeting.summaries[0]!.content).toContain(`## Weekly ${format}`);
    expect(meeting.summaries[0]!.content).toContain(`- Opening words: "${text.split(' ').slice(0, 8).join(' ')}"`);
    const expected = KEYWORDS.filter((k) => heard.includes(k)).slice(0, 2);
    expect(meeting.action_items.map((a) => a.text)).toEqual(expected.map((k) => `Follow up on ${k}`));
    // The meeting spans the recording, ending when the file was last written.
    expect(Date.parse(meeting.ended_at!) - Date.parse(meeting.started_at)).toBe(job.audio_duration_ms);
    expect(meeting.processing_status).toBe('done');

    // The outcome line follows the commit; it may still be in the pipe.
    const outcome = await worker.waitForLog((l) => l.msg === 'import done' && l.jobId === job.job_id, 5_000);
    expect(outcome).toMatchObject({ status: 'done', summaryStatus: 'done', stage: 'summarizing' });
    expect(outcome!.ms).toBeTypeOf('number');
  });
});
