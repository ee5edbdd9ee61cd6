import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { titleFromPath } from '../../audio/file.js';
import { extractAudio, MediaError } from '../../ingest/ffmpeg.js';
import { transcribe, transcriptionTimeoutMs, type TranscribeOptions } from '../clients/transcription.js';
import { transcribeInChunks } from '../chunking/transcribe-chunks.js';
import { chunkPlan } from '../chunking/plan.js';
import { JobFailure } from '../errors.js';
import type { StageContext, TranscriptionResult } from './context.js';
import type { AudioInfo } from './importing.js';
import { serverTiming, speakersOf, toNewWords } from './words.js';

// Stage 2: the recording goes to the transcription server (streamed from disk), in one request or, for a
// long or large recording, in overlapping chunks; the words are stored with their times and speakers.

export type { TranscriptionResult } from './context.js';

export async function transcribeRecording(ctx: StageContext, audio: AudioInfo): Promise<TranscriptionResult> {
  const t = ctx.config.transcription;
  if (t.url === null)
    throw new JobFailure(
      'No transcription server is configured. Set one with `syntheo config set transcription.url http://127.0.0.1:8178` (or the SYNTHEO_TRANSCRIPTION_URL environment variable of the worker), then import the recording again with a new request_key.',
    );
  if (audio.extract) return transcribeExtracted(ctx, audio);
  return transcribeFile(ctx, audio);
}

/**
 * A video (or a container servers do not read): its audio track, mono 16 kHz Opus, goes up instead,
 * written into the job's temp folder (`syntheo-<job>-XXXXXX`, removed after, or at the next start if killed).
 */
async function transcribeExtracted(ctx: StageContext, audio: AudioInfo): Promise<TranscriptionResult> {
  const { job } = ctx;
  const dir = await mkdtemp(join(tmpdir(), `syntheo-${job.id}-`));
  try {
    let out;
    try {
      out = await extractAudio(job.filePath, join(dir, 'audio.ogg'), { signal: ctx.signal });
    } catch (error) {
      if (error instanceof MediaError) throw new JobFailure(`The audio track of ${job.filePath} could not be extracted: ${error.message}`);
      throw error;
    }
    const info = await stat(out.path);
    ctx.log.info({ from: job.fileSize, to: out.bytes }, 'audio track extracted');
    // The stages below read the extracted file as if it were the job's: same checks, same chunking.
    const extracted: StageContext = { ...ctx, job: { ...job, filePath: out.path, fileSize: info.size, fileMtimeMs: Math.trunc(info.mtimeMs), fileFormat: 'ogg', extractAudio: false } };
    return await transcribeFile(extracted, { durationMs: out.durationMs ?? audio.durationMs, format: 'ogg', size: info.size, extract: false }, titleFromPath(job.filePath));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function transcribeFile(ctx: StageContext, audio: AudioInfo, name?: string): Promise<TranscriptionResult> {
  const t = ctx.config.transcription;
  const plan = chunkPlan(audio, t);
  if (plan !== null) {
    ctx.log.info({ chunks: plan.chunks, chunkSeconds: plan.chunkMs / 1000, overlapSeconds: plan.overlapMs / 1000, reason: plan.reason }, 'transcribing in chunks');
    return transcribeInChunks(ctx, audio, plan, clientOptions(ctx, plan.chunkMs + plan.overlapMs, name));
  }
  const transcript = await transcribe(ctx.job.filePath, { ...clientOptions(ctx, audio.durationMs, name), durationMs: audio.durationMs });
  const words = toNewWords(transcript.words);
  const count = await ctx.store.jobs.finishTranscription(ctx.lease, ctx.job.meetingId, { words, language: transcript.language ?? t.language, timing: serverTiming(transcript) }, speakersOf(words));
  ctx.log.debug({ words: count, timing: transcript.timing, format: transcript.responseFormat }, 'transcript stored');
  return { words: count, chunks: null };
}

/** Client options for one request carrying `audioMs` of audio. */
export function clientOptions(ctx: StageContext, audioMs: number, name = titleFromPath(ctx.job.filePath)): TranscribeOptions {
  const t = ctx.config.transcription;
  return {
    url: t.url!,
    model: t.model,
    api: t.api,
    apiKey: t.apiKey ?? undefined,
    language: t.language ?? undefined,
    // transcription.timeout_seconds is the longest wait; a short recording gets a shorter one.
    timeoutMs: Math.min(t.timeoutMs, transcriptionTimeoutMs(audioMs)),
    retry: ctx.tuning.retry,
    signal: ctx.signal,
    logger: ctx.log,
    dispatcher: ctx.http,
    // OpenAI picks its decoder from the name: give the extension of the sniffed format.
    filename: `${name}.${ctx.job.fileFormat}`,
  };
}
