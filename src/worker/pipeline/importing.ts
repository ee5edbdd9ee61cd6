import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { parseBlob } from 'music-metadata';
import { AUDIO_FORMATS, AUDIO_FORMAT_LIST, AUDIO_MIME, type AudioFormat } from '../../audio/sniff.js';
import { probe, MediaError } from '../../ingest/ffmpeg.js';
import { readTranscriptFile, TRANSCRIPT_FORMATS, TranscriptFileError, type TranscriptFormat } from '../../ingest/transcript/index.js';
import { fileTiming, speakersOf } from './words.js';
import { JobFailure } from '../errors.js';
import type { StageContext } from './context.js';

// Stage 1: the recording is still the one import_recording saw, and it has a duration.

export interface AudioInfo {
  durationMs: number;
  /** One of the eight formats; for a file whose audio is extracted, the container's name. */
  format: AudioFormat | string;
  size: number;
  /** The audio track is extracted (ffmpeg) before upload. */
  extract: boolean;
}

/** A transcript file: stored here, transcription skipped. */
export interface FileTranscriptInfo {
  transcript: TranscriptFormat;
  words: number;
  durationMs: number;
}

const AGAIN = 'Import it again with a new request_key';

export async function importRecording(ctx: StageContext): Promise<AudioInfo | FileTranscriptInfo> {
  const { job } = ctx;
  await checkUnchanged(job.filePath, job.fileSize, job.fileMtimeMs, 'since import_recording');
  if ((TRANSCRIPT_FORMATS as readonly string[]).includes(job.fileFormat)) return importTranscript(ctx, job.fileFormat as TranscriptFormat);
  if (job.extractAudio || !(AUDIO_FORMATS as readonly string[]).includes(job.fileFormat)) return importMedia(ctx);
  if (!(AUDIO_FORMATS as readonly string[]).includes(job.fileFormat))
    throw new JobFailure(`The recording ${job.filePath} was queued as "${job.fileFormat}", which is not one of the supported formats (${AUDIO_FORMAT_LIST}).`);
  const format = job.fileFormat as AudioFormat;
  const durationMs = await readDurationMs(job.filePath, format);
  ctx.signal.throwIfAborted();
  await ctx.store.jobs.recordAudioFacts(ctx.lease, job.meetingId, { durationMs, endedAtMs: job.fileMtimeMs });
  ctx.log.debug({ durationMs, format }, 'recording checked');
  return { durationMs, format, size: job.fileSize, extract: false };
}

/** A transcript file: parsed again (it was checked at enqueue), its words, speakers and times stored. */
async function importTranscript(ctx: StageContext, format: TranscriptFormat): Promise<FileTranscriptInfo> {
  const { job } = ctx;
  let parsed;
  try {
    parsed = await readTranscriptFile(job.filePath, { format });
  } catch (error) {
    if (error instanceof TranscriptFileError) throw new JobFailure(`The transcript ${job.filePath} cannot be read any more: ${error.message}`);
    throw error;
  }
  ctx.signal.throwIfAborted();
  // One flag per transcript (not per word): the file's own times, times we spread over its cues, or both.
  const words = parsed.words.map((w) => ({ text: w.text, startMs: w.startMs, endMs: w.endMs, speaker: w.speaker }));
  const batch = { words, language: parsed.language ?? null, timing: fileTiming(parsed.timing) };
  const count = await ctx.store.jobs.storeFileTranscript(ctx.lease, job.meetingId, { durationMs: parsed.durationMs, endedAtMs: job.fileMtimeMs }, batch, speakersOf(words));
  ctx.log.debug({ format, words: count, timing: parsed.timing, speakers: parsed.speakers.length }, 'transcript file stored');
  return { transcript: format, words: count, durationMs: parsed.durationMs };
}

/** Anything ffmpeg reads, and videos in the eight formats: ffprobe gives the duration; the audio is extracted when transcribing. */
async function importMedia(ctx: StageContext): Promise<AudioInfo> {
  const { job } = ctx;
  let info;
  try {
    info = await probe(job.filePath, { signal: ctx.signal });
  } catch (error) {
    if (error instanceof MediaError) throw new JobFailure(`The recording ${job.filePath} (${job.fileFormat}) could not be read: ${error.message}`);
    throw error;
  }
  if (!info.hasAudio) throw new JobFailure(`The recording ${job.filePath} has no audio track any more, so there is nothing to transcribe.`);
  // One of the eight formats holding a video: its audio track's own duration (the container's may be the video's).
  if ((AUDIO_FORMATS as readonly string[]).includes(job.fileFormat)) info = { ...info, durationMs: await readDurationMs(job.filePath, job.fileFormat as AudioFormat) };
  if (info.durationMs === null || !(info.durationMs > 0))
    throw new JobFailure(`The recording ${job.filePath} (${job.fileFormat}) has no readable duration. The file may be damaged or still being written; check that it plays, then import it again with a new request_key.`);
  ctx.signal.throwIfAborted();
  await ctx.store.jobs.recordAudioFacts(ctx.lease, job.meetingId, { durationMs: info.durationMs, endedAtMs: job.fileMtimeMs });
  ctx.log.debug({ durationMs: info.durationMs, container: info.container, video: info.hasVideo }, 'recording checked');
  return { durationMs: info.durationMs, format: job.fileFormat, size: job.fileSize, extract: true };
}

/** The file must be where it was, with the same size and modification time. */
export async function checkUnchanged(path: string, size: number, mtimeMs: number, since: string): Promise<void> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new JobFailure(`The recording ${path} vanished ${since} (it was moved, renamed or deleted). Put it back, or ${AGAIN.toLowerCase()} and the file's new path.`);
    throw new JobFailure(`The recording ${path} cannot be read any more (${code ?? 'error'}). Check its permissions, then ${AGAIN.toLowerCase()}.`);
  }
  if (!info.isFile()) throw new JobFailure(`${path} is no longer a regular file. ${AGAIN} once the recording is back.`);
  const changes: string[] = [];
  if (info.size !== size) changes.push(`its size went from ${size} to ${info.size} bytes`);
  if (Math.trunc(info.mtimeMs) !== mtimeMs) changes.push(`it was modified at ${new Date(info.mtimeMs).toISOString()}`);
  if (changes.length > 0)
    throw new JobFailure(
      `The file changed ${since}: ${changes.join(' and ')}, so it is not the recording that was queued. If the new content is the recording you want, wait until it is completely written, then ${AGAIN.toLowerCase()}.`,
    );
}

async function readDurationMs(path: string, format: AudioFormat): Promise<number> {
  const describe = `The recording ${path} (${format.toUpperCase()})`;
  let seconds: number | undefined;
  let hasAudio: boolean | undefined;
  try {
    const blob = await openAsBlob(path, { type: AUDIO_MIME[format] });
    // Cheap first (headers, tables of contents); a full scan only when they do not say (raw ADTS AAC, some MP3).
    let meta = await parseBlob(blob, { duration: false, skipCovers: true });
    if (!isUsable(meta.format.duration)) meta = await parseBlob(blob, { duration: true, skipCovers: true });
    seconds = meta.format.duration;
    hasAudio = meta.format.hasAudio;
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/: \/.*$/, '') : String(error);
    throw new JobFailure(`${describe} could not be read as audio (${reason}). The file may be damaged or truncated; check that it plays, then import it again with a new request_key.`);
  }
  if (hasAudio === false) throw new JobFailure(`${describe} has no audio track. Export the meeting's audio (${AUDIO_FORMAT_LIST}) and import that.`);
  if (!isUsable(seconds))
    throw new JobFailure(
      `${describe} has no readable duration (${seconds === undefined ? 'unknown' : String(seconds)}). The file may be damaged, truncated or still being written; check that it plays, then import it again with a new request_key.`,
    );
  return Math.round(seconds * 1000);
}

function isUsable(seconds: number | undefined): seconds is number {
  return seconds !== undefined && Number.isFinite(seconds) && seconds > 0;
}
