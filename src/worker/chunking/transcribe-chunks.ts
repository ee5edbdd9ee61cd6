import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LeaseLostError } from '../../db/model/jobs.js';
import type { NewWord } from '../../db/model/transcripts.js';
import { transcribe, type TranscribeOptions, type Transcript } from '../clients/transcription.js';
import { HttpClientError } from '../clients/http.js';
import { JobFailure } from '../errors.js';
import type { StageContext, TranscriptionResult } from '../pipeline/context.js';
import { checkUnchanged, type AudioInfo } from '../pipeline/importing.js';
import { joinTiming, serverTiming, speakersOf, toNewWords } from '../pipeline/words.js';
import type { TranscriptTiming } from '../../db/schema/enums.js';
import { OverlapMerger } from './merge.js';
import type { ChunkPlan } from './plan.js';
import { findProgram } from '../../platform/which.js';
import { splitIntoChunks, type AudioChunk } from './split.js';

// Long or large recordings: decode and cut with ffmpeg, transcribe a few chunks at a time, and commit
// each chunk's words as soon as it and every chunk before it are done, with the progress. An
// interruption keeps every chunk committed so far.

/** whisper.cpp's server decodes one request at a time: a second one would only wait (and time out) there. */
function chunkConcurrency(api: string): number {
  return api === 'whisper.cpp' ? 1 : 2;
}

export function formatClock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

type Settled = { ok: true; transcript: Transcript } | { ok: false; error: unknown };

export async function transcribeInChunks(ctx: StageContext, audio: AudioInfo, plan: ChunkPlan, options: TranscribeOptions): Promise<TranscriptionResult> {
  const { job, store, lease } = ctx;
  const ffmpeg = findProgram('ffmpeg');
  if (ffmpeg === null) {
    const why =
      plan.reason === 'duration'
        ? `it is longer (${formatClock(audio.durationMs)}) than transcription.chunk_seconds (${formatClock(ctx.config.transcription.chunkSeconds * 1000)})`
        : `it is larger (${Math.round(audio.size / 1024 / 1024)} MB) than transcription.max_upload_mb (${Math.round(ctx.config.transcription.maxUploadBytes / 1024 / 1024)} MB)`;
    throw new JobFailure(
      `This recording must be transcribed in chunks because ${why}, and cutting it needs ffmpeg, which was not found on the worker's PATH. Install ffmpeg (apt install ffmpeg, brew install ffmpeg), restart the worker, then import the recording again with a new request_key.`,
    );
  }

  const dir = await mkdtemp(join(tmpdir(), `syntheo-${job.id}-`));
  const stop = new AbortController();
  const onAbort = () => stop.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  const merger = new OverlapMerger(plan.overlapMs);
  let total = plan.chunks;
  let done = 0;
  let words = 0;
  let language: string | null = ctx.config.transcription.language;
  // Of the chunks committed so far: 'mixed' once one chunk's times were measured and another's estimated.
  let timing: TranscriptTiming | undefined;
  const speakers = new Set<string>();
  const inflight: { chunk: AudioChunk; result: Promise<Settled> }[] = [];

  const send = (chunk: AudioChunk): Promise<Settled> =>
    transcribe(chunk.path, { ...options, signal: stop.signal, durationMs: chunk.durationMs, filename: `chunk-${chunk.index + 1}.wav` })
      .then((transcript): Settled => ({ ok: true, transcript }), (error: unknown): Settled => ({ ok: false, error }))
      .finally(() => rm(chunk.path, { force: true }));

  // Waits for the oldest chunk in flight and commits its words (chunks finish in any order, commit in order).
  const commitOldest = async (): Promise<void> => {
    const { chunk, result } = inflight.shift()!;
    const settled = await result;
    if (!settled.ok) {
      stop.abort(settled.error);
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const said = settled.error instanceof HttpClientError || settled.error instanceof JobFailure ? settled.error.message : settled.error instanceof Error ? settled.error.message : String(settled.error);
      throw new JobFailure(
        `Transcription of chunk ${chunk.index + 1} of ${total} (${formatClock(chunk.startMs)}-${formatClock(chunk.startMs + chunk.durationMs)}) failed: ${said}` +
          (done > 0 ? ` The transcript of the first ${done} chunk${done === 1 ? '' : 's'} is kept.` : ''),
      );
    }
    const t = settled.transcript;
    if (language === null && t.language !== undefined) language = t.language;
    timing = joinTiming(timing, serverTiming(t));
    const shifted = toNewWords(t.words, chunk.startMs);
    for (const s of speakersOf(shifted)) speakers.add(s);
    const ready = merger.push(shifted, { startMs: chunk.startMs, endMs: chunk.startMs + chunk.durationMs });
    done = chunk.index + 1;
    total = Math.max(total, done);
    words = await store.jobs.appendWords(lease, job.meetingId, { words: ready, language, timing, progress: { chunksDone: done, chunksTotal: total } });
    ctx.log.info({ chunk: done, of: total, chunkWords: t.words.length, words }, 'chunk transcribed');
  };

  try {
    // Inside the try: a lost lease here still removes the temp folder and the abort listener.
    await store.jobs.startChunkProgress(lease, total);
    for await (const chunk of splitIntoChunks(job.filePath, { chunkMs: plan.chunkMs, overlapMs: plan.overlapMs, dir, signal: stop.signal, ffmpeg })) {
      if (chunk.index + 1 > total) total = chunk.index + 1;
      inflight.push({ chunk, result: send(chunk) });
      while (inflight.length >= chunkConcurrency(options.api)) await commitOldest();
    }
    while (inflight.length > 0) await commitOldest();
    await checkUnchanged(job.filePath, job.fileSize, job.fileMtimeMs, 'during the import');
    const tail: NewWord[] = merger.finish();
    words = await store.jobs.finishTranscription(lease, job.meetingId, { words: tail, language, timing, progress: { chunksDone: done, chunksTotal: done } }, [...speakers]);
    return { words, chunks: done };
  } catch (error) {
    stop.abort(error);
    // Settle what is still in flight before the temp folder goes.
    await Promise.allSettled(inflight.map((f) => f.result));
    // The held-back tail of the last committed chunk is real transcript too: keep it (unless the job is no longer ours).
    const tail = merger.finish();
    if (tail.length > 0 && !(error instanceof LeaseLostError) && !(ctx.signal.reason instanceof LeaseLostError)) {
      try {
        await store.jobs.appendWords(lease, job.meetingId, { words: tail, language, timing });
      } catch {
        // lease gone in the meantime: nothing to keep
      }
    }
    if (ctx.signal.aborted) throw ctx.signal.reason;
    throw error;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    await rm(dir, { recursive: true, force: true });
  }
}
