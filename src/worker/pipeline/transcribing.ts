import { titleFromPath } from '../../audio/file.js';
import { finishTranscription } from '../../db/queries/jobs.js';
import { transcribe, transcriptionTimeoutMs, type TranscribeOptions } from '../clients/transcription.js';
import { transcribeInChunks } from '../chunking/transcribe-chunks.js';
import { chunkPlan } from '../chunking/plan.js';
import { JobFailure } from '../errors.js';
import type { StageContext } from './context.js';
import type { AudioInfo } from './importing.js';
import { speakersOf, toNewWords } from './words.js';

// Stage 2: the recording goes to the transcription server (streamed from disk), in one request or, for a
// long or large recording, in overlapping chunks; the words are stored with their times and speakers.

export interface TranscriptionResult {
  words: number;
  /** Chunks transcribed; null when the recording went in one request. */
  chunks: number | null;
}

export async function transcribeRecording(ctx: StageContext, audio: AudioInfo): Promise<TranscriptionResult> {
  const t = ctx.config.transcription;
  if (t.url === null)
    throw new JobFailure(
      'No transcription server is configured. Set one with `syntheo config set transcription.url http://127.0.0.1:8178` (or the SYNTHEO_TRANSCRIPTION_URL environment variable of the worker), then import the recording again with a new request_key.',
    );
  const plan = chunkPlan(audio, t);
  if (plan !== null) {
    ctx.log.info({ chunks: plan.chunks, chunkSeconds: plan.chunkMs / 1000, overlapSeconds: plan.overlapMs / 1000, reason: plan.reason }, 'transcribing in chunks');
    return transcribeInChunks(ctx, audio, plan, clientOptions(ctx, plan.chunkMs + plan.overlapMs));
  }
  const transcript = await transcribe(ctx.job.filePath, { ...clientOptions(ctx, audio.durationMs), durationMs: audio.durationMs });
  const words = toNewWords(transcript.words);
  const count = finishTranscription(ctx.sqlite, ctx.lease, ctx.job.meetingId, { words, language: transcript.language ?? t.language }, speakersOf(words));
  ctx.log.debug({ words: count, timing: transcript.timing, format: transcript.responseFormat }, 'transcript stored');
  return { words: count, chunks: null };
}

/** Client options for one request carrying `audioMs` of audio. */
export function clientOptions(ctx: StageContext, audioMs: number): TranscribeOptions {
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
    filename: `${titleFromPath(ctx.job.filePath)}.${ctx.job.fileFormat}`,
  };
}
