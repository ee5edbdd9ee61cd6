import { open, realpath, stat as statPath } from 'node:fs/promises';
import { basename, extname, isAbsolute } from 'node:path';
import { constants, type Stats } from 'node:fs';
import { InvalidInputError } from '../errors.js';
import { AUDIO_FORMAT_LIST, SNIFF_BYTES, describeContent, id3Size, sniffAudio, type AudioFormat } from './sniff.js';
import { MPEG_HEAD_BYTES, truncationOf } from './truncation.js';
import { detectHead, inspectMedia } from '../ingest/detect.js';
import { MediaError, type ProbeOptions } from '../ingest/ffmpeg.js';
import { readTranscriptFile, TranscriptFileError, type ParsedTranscript } from '../ingest/transcript/index.js';

export interface AudioFileInfo {
  /** Absolute, symlinks resolved. */
  path: string;
  size: number;
  mtimeMs: number;
  format: AudioFormat;
}

/** Longest path accepted: Linux PATH_MAX. */
export const MAX_PATH_BYTES = 4096;

/**
 * Checks an import's file as SPEC §4 says: absolute path, exists, a regular file once symlinks are
 * resolved, readable, non-empty, one of the eight formats by its content, and not visibly cut short
 * (see truncation.ts). Every refusal says why and what to do; nothing here reads more than the first few KB.
 */
export async function inspectAudioFile(filePath: string): Promise<AudioFileInfo> {
  const sniffed = await sniffFile(filePath);
  if (sniffed.format === null)
    throw new InvalidInputError(
      `The file "${sniffed.shown}" is not a supported recording: ${describeContent(sniffed.head)}. Syntheo imports ${AUDIO_FORMAT_LIST} files (detected from their content, not their name).`,
    );
  return { ...sniffed.file, format: sniffed.format };
}

interface Sniffed {
  file: Omit<AudioFileInfo, 'format'>;
  shown: string;
  head: Buffer;
  /** One of the eight formats (checked not cut short), or null: something else. */
  format: AudioFormat | null;
}

async function sniffFile(filePath: string): Promise<Sniffed> {
  const shown = filePath.length > 200 ? `${filePath.slice(0, 200)}…` : filePath;
  if (filePath.trim() === '') throw badPath('is empty. Give the absolute path of an audio file on this computer.');
  if (filePath.includes('\0')) throw badPath('contains a NUL character. Give the absolute path of an audio file on this computer.');
  if (Buffer.byteLength(filePath) > MAX_PATH_BYTES) throw badPath(`is longer than ${MAX_PATH_BYTES} bytes, the longest path this system accepts.`);
  if (filePath.startsWith('~')) throw badPath(`"${shown}" starts with "~", which is not expanded here. Give the full absolute path (for example /home/you/recordings/meeting.m4a).`);
  if (!isAbsolute(filePath)) throw badPath(`"${shown}" is relative. Give the absolute path of the file (the server's working directory is not yours).`);

  let real: string;
  try {
    real = await realpath(filePath);
  } catch (error) {
    throw fileError(error, shown);
  }
  // Refused before opening: opening a device can have effects of its own, and a socket cannot be opened.
  try {
    checkRegular(await statPath(real), shown);
  } catch (error) {
    throw error instanceof InvalidInputError ? error : fileError(error, shown);
  }
  let handle;
  try {
    // O_NONBLOCK: should the path become a FIFO since, opening it must not wait for a writer.
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw fileError(error, shown);
  }
  try {
    const stat = await handle.stat();
    checkRegular(stat, shown);
    if (stat.size === 0) throw new InvalidInputError(`The file "${shown}" is empty (0 bytes). Check that the recording finished saving.`);
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, stat.size));
    await handle.read(head, 0, head.length, 0);
    let format = sniffAudio(head);
    const tag = id3Size(head);
    // The first bytes after an ID3 tag: the first MPEG frame, with its Xing/Info header.
    let afterTag: Uint8Array | undefined = tag > 0 && tag + MPEG_HEAD_BYTES <= head.length ? head.subarray(tag) : undefined;
    if (tag > 0 && !afterTag && tag < stat.size) {
      const after = Buffer.alloc(Math.min(MPEG_HEAD_BYTES, stat.size - tag));
      await handle.read(after, 0, after.length, tag);
      afterTag = after;
      if (format === null) format = sniffAudio(head, after);
    }
    if (format === null && tag >= stat.size)
      throw new InvalidInputError(`The file "${shown}" is cut short: it ends inside its ID3 tag, before any audio. Copy or download it again completely.`);
    const file = { path: real, size: stat.size, mtimeMs: Math.trunc(stat.mtimeMs) };
    if (format === null) return { file, shown, head, format: null };
    const truncated = truncationOf(format, head, stat.size, tag > 0 ? afterTag : head, tag);
    if (truncated)
      throw new InvalidInputError(`The file "${shown}" is cut short: ${truncated}. Wait until it is completely copied or downloaded (or export it again), then import it.`);
    return { file, shown, head, format };
  } finally {
    await handle.close();
  }
}

export type ImportKind = 'audio' | 'transcript' | 'media';

export interface ImportFileInfo {
  path: string;
  size: number;
  mtimeMs: number;
  /** An audio format (wav ...), a transcript format (vtt ...) or a container (matroska ...). */
  format: string;
  /** 'audio': one of the eight formats, uploaded as it is; 'transcript': skips transcription; 'media': read by ffmpeg. */
  kind: ImportKind;
  /** The worker extracts the audio track before upload (a video, or a container servers do not take). */
  extractAudio: boolean;
  /** The recording's own creation time (ffprobe tags), when it has one. */
  creationTime: string | null;
  /** Transcripts only: parsed at enqueue, so a malformed one is refused with its line. */
  transcript?: ParsedTranscript;
}

/** Eight-format files that may carry a picture track: probed, when ffmpeg is there, so a video's audio is extracted. */
const MAY_HOLD_VIDEO: ReadonlySet<AudioFormat> = new Set(['mp4', 'm4a', 'webm', 'ogg']);

/**
 * Every input an import accepts (SPEC §4): the checks of inspectAudioFile, then, by content, one of
 * the eight audio formats (no ffmpeg needed), a transcript file (parsed now: a malformed one is refused
 * with its line), or any container ffprobe finds an audio track in.
 */
export async function inspectImportFile(filePath: string, probeOpts: ProbeOptions = {}): Promise<ImportFileInfo> {
  const { file, shown, head, format } = await sniffFile(filePath);
  const withName = (e: unknown): never => {
    if (e instanceof MediaError || e instanceof TranscriptFileError) throw new InvalidInputError(`"${shown}": ${e.message}`);
    throw e;
  };
  if (format !== null) {
    const base = { ...file, format, kind: 'audio' as const, extractAudio: false, creationTime: null };
    if (!MAY_HOLD_VIDEO.has(format)) return base;
    const media = await inspectMedia(file.path, { kind: 'audio', format }, probeOpts).catch(withName);
    return media === null ? base : { ...base, extractAudio: media.hasVideo, creationTime: media.creationTime };
  }
  const detected = detectHead(head);
  if (detected.kind === 'transcript') {
    const transcript = await readTranscriptFile(file.path, { format: detected.format }).catch(withName);
    return { ...file, format: detected.format, kind: 'transcript', extractAudio: false, creationTime: null, transcript };
  }
  const unsupported = `The file "${shown}" is not a supported recording: ${describeContent(head)}. Syntheo imports ${AUDIO_FORMAT_LIST} files, any video or audio file ffmpeg reads (MKV, MOV, AVI, MPEG-TS, WMA ...), and transcripts (WebVTT, SRT, Whisper JSON, "Speaker: text" lines), detected from their content, not their name.`;
  if (detected.kind === 'text') throw new InvalidInputError(unsupported);
  const media = await inspectMedia(file.path, detected, probeOpts).catch((e: unknown) => {
    if (e instanceof MediaError && e.reason === 'unreadable' && detected.kind === 'unknown') throw new InvalidInputError(unsupported);
    return withName(e);
  });
  if (media === null) throw new InvalidInputError(`The file "${shown}" is not a supported recording: ${describeContent(head)}.`);
  return {
    ...file,
    format: detected.kind === 'container' ? detected.container : media.container.split(',')[0]!,
    kind: 'media',
    extractAudio: true,
    creationTime: media.creationTime,
  };
}

/** The import's file path (file_path over MCP, FILE on the command line) and what is wrong with it. */
function badPath(problem: string): InvalidInputError {
  return new InvalidInputError({ type: 'field', field: 'file_path', problem });
}

function checkRegular(stat: Stats, shown: string): void {
  if (stat.isDirectory()) throw badPath(`"${shown}" is a directory. Give the path of an audio file.`);
  if (!stat.isFile()) throw badPath(`"${shown}" is not a regular file (it is a device, pipe or socket). Give the path of an audio file.`);
}

function fileError(error: unknown, shown: string): InvalidInputError {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'EISDIR' ? badPath(`"${shown}" is a directory. Give the path of an audio file.`) : new InvalidInputError(fileMessage(code, shown));
}

function fileMessage(code: string | undefined, shown: string): string {
  switch (code) {
    case 'ENOENT':
      return `The file "${shown}" does not exist (or is a symlink to a missing file). Check the path.`;
    case 'ELOOP':
      return `The path "${shown}" is a symlink loop. Give the path of the real file.`;
    case 'EACCES':
    case 'EPERM':
      return `The file "${shown}" cannot be read by the user running Syntheo (permission denied). Fix its permissions.`;
    case 'ENOTDIR':
      return `The path "${shown}" goes through something that is not a directory. Check the path.`;
    case 'ENAMETOOLONG':
      return `The path "${shown}" is too long for this system.`;
    default:
      return `The file "${shown}" cannot be opened (${code ?? 'unknown error'}).`;
  }
}

/** Default meeting title: the file name without its extension. */
export function titleFromPath(path: string): string {
  const name = basename(path);
  const ext = extname(name);
  const title = ext && ext !== name ? name.slice(0, -ext.length) : name;
  return title.trim() === '' ? name : title;
}
