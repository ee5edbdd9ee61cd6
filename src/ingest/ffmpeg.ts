import { spawn } from 'node:child_process';
import { rename, rm, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { SyntheoError } from '../errors.js';

// ffprobe/ffmpeg as child processes: what a recording holds (probe), and its first audio track as
// mono 16 kHz compressed audio (extractAudio). Every run is bounded in time and output, cancellable,
// and reads only the local file it is given (`file:` prefix, file protocol only: a playlist inside a
// file cannot make ffmpeg open URLs).

export type MediaErrorReason = 'ffmpeg_missing' | 'unreadable' | 'no_audio' | 'timeout' | 'failed';

export class MediaError extends SyntheoError {
  override readonly name = 'MediaError';
  constructor(
    readonly reason: MediaErrorReason,
    message: string,
  ) {
    super(reason === 'ffmpeg_missing' || reason === 'timeout' ? 'unavailable' : 'invalid', message);
  }
}

export interface MediaInfo {
  /** ffprobe's format name, e.g. "matroska,webm", "mov,mp4,m4a,3gp,3g2,mj2", "avi", "mpegts", "asf". */
  container: string;
  /** A readable name, e.g. "QuickTime / MOV". */
  containerName: string;
  hasAudio: boolean;
  /** A picture track; cover art (attached pictures in MP3/M4A) does not count. */
  hasVideo: boolean;
  audioCodec: string | null;
  videoCodec: string | null;
  durationMs: number | null;
  /** When the recording was made (ISO 8601 UTC), from the container's tags when it has one. */
  creationTime: string | null;
}

export interface RunOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ProbeOptions extends RunOptions {
  ffprobePath?: string;
}

export type ExtractCodec = 'opus' | 'flac';

export interface ExtractOptions extends RunOptions {
  /**
   * 'opus' (default): Opus in OGG at 24 kbit/s (constrained VBR, so steady tones or noise do not
   * inflate it), about 11 MB an hour: OpenAI's 25 MiB upload limit holds 2 hours. Read by OpenAI,
   * faster-whisper/speaches, Groq, and anything that decodes with ffmpeg. 'flac': lossless, about 5 times larger, for servers that decode only
   * WAV/MP3/FLAC (whisper.cpp's server without --convert).
   */
  codec?: ExtractCodec;
  ffmpegPath?: string;
  ffprobePath?: string;
}

export interface ExtractedAudio {
  path: string;
  codec: ExtractCodec;
  bytes: number;
  durationMs: number | null;
}

export const PROBE_TIMEOUT_MS = 30_000;
/** Default bound for one extraction: 10 minutes, or half the recording's length when that is longer. */
export const EXTRACT_MIN_TIMEOUT_MS = 10 * 60_000;
const MAX_PROBE_OUTPUT = 1024 * 1024; // ffprobe's JSON for a file with many streams is a few KB
const OPUS_BITRATE = '24k';

const missing = (program: string): MediaError =>
  new MediaError(
    'ffmpeg_missing',
    `${program} is not installed, and it is needed to read video files and audio formats other than WAV, MP3, OGG, MP4, M4A, FLAC, WebM and AAC. Install the Debian/Ubuntu package \`ffmpeg\` (apt-get install ffmpeg; macOS: brew install ffmpeg), then try again.`,
  );

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function run(program: string, args: string[], opts: RunOptions & { timeoutMs: number; maxStdout: number }): Promise<RunResult> {
  opts.signal?.throwIfAborted();
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  return await new Promise<RunResult>((resolvePromise, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], signal, killSignal: 'SIGKILL' });
    const out: Buffer[] = [];
    let outBytes = 0;
    let tooMuch = false;
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      outBytes += d.length;
      if (outBytes > opts.maxStdout) {
        tooMuch = true;
        child.kill('SIGKILL');
      } else out.push(d);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
    });
    child.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') reject(missing(program.split('/').pop() ?? program));
      else if (err.name === 'AbortError') reject(abortReason(opts.signal, program, opts.timeoutMs));
      else reject(new MediaError('failed', `${program} could not be started (${err.code ?? err.message}).`));
    });
    child.once('close', (code) => {
      if (signal.aborted) return reject(abortReason(opts.signal, program, opts.timeoutMs));
      if (tooMuch) return reject(new MediaError('failed', `${program} wrote more than ${opts.maxStdout} bytes of output; the file is not a plain recording.`));
      resolvePromise({ code, stdout: Buffer.concat(out).toString('utf8'), stderr });
    });
  });
}

function abortReason(user: AbortSignal | undefined, program: string, ms: number): unknown {
  if (user?.aborted) return user.reason;
  return new MediaError('timeout', `${program} did not finish within ${ms % 1000 === 0 ? ms / 1000 : (ms / 1000).toFixed(1)} s; the file may be very long or damaged.`);
}

/** ffmpeg's last error line, without the file's path (messages never carry paths or contents). */
function lastError(stderr: string, path: string): string {
  const line = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .pop();
  return (line ?? 'no detail').split(path).join('the file').replace(/^file:the file: /, '').slice(0, 200);
}

interface ProbeJson {
  format?: { format_name?: string; format_long_name?: string; duration?: string; tags?: Record<string, string> };
  streams?: Array<{ codec_type?: string; codec_name?: string; disposition?: { attached_pic?: number }; tags?: Record<string, string> }>;
}

const input = (path: string): string => `file:${resolve(path)}`;

export async function probe(path: string, opts: ProbeOptions = {}): Promise<MediaInfo> {
  const program = opts.ffprobePath ?? 'ffprobe';
  const args = ['-v', 'error', '-protocol_whitelist', 'file', '-print_format', 'json', '-show_format', '-show_streams', '-i', input(path)];
  const res = await run(program, args, { signal: opts.signal, timeoutMs: opts.timeoutMs ?? PROBE_TIMEOUT_MS, maxStdout: MAX_PROBE_OUTPUT });
  if (res.code !== 0) throw new MediaError('unreadable', `ffmpeg cannot read this file as audio or video (${lastError(res.stderr, resolve(path))}).`);
  let json: ProbeJson;
  try {
    json = JSON.parse(res.stdout) as ProbeJson;
  } catch {
    throw new MediaError('failed', 'ffprobe answered with something that is not JSON.');
  }
  const streams = json.streams ?? [];
  const audio = streams.find((s) => s.codec_type === 'audio');
  const video = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  const seconds = Number(json.format?.duration);
  return {
    container: json.format?.format_name ?? 'unknown',
    containerName: json.format?.format_long_name ?? json.format?.format_name ?? 'unknown',
    hasAudio: audio !== undefined,
    hasVideo: video !== undefined,
    audioCodec: audio?.codec_name ?? null,
    videoCodec: video?.codec_name ?? null,
    durationMs: Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null,
    creationTime: creationTime(json.format?.tags, ...streams.map((s) => s.tags)),
  };
}

/**
 * The recording's own creation time: Apple's local capture date first (phones and QuickTime keep it
 * with its zone), then the container's `creation_time`, then a stream's. Epoch-zero dates that some
 * muxers write when they know nothing are ignored.
 */
function creationTime(...tagSets: Array<Record<string, string> | undefined>): string | null {
  const keys = ['com.apple.quicktime.creationdate', 'creation_time', 'date'];
  for (const key of keys) {
    for (const tags of tagSets) {
      const value = tags === undefined ? undefined : Object.entries(tags).find(([k]) => k.toLowerCase() === key)?.[1];
      if (value === undefined) continue;
      const t = Date.parse(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
      if (Number.isFinite(t) && t > Date.UTC(1971, 0, 1)) return new Date(t).toISOString();
    }
  }
  return null;
}

export const noAudio = (info: MediaInfo): MediaError =>
  new MediaError('no_audio', `This ${info.hasVideo ? 'video file' : 'file'} has no audio track, so there is nothing to transcribe.`);

/**
 * Writes the first audio track of `path` to `outPath` as mono 16 kHz audio (see ExtractOptions.codec).
 * Refuses a file without an audio track. The output appears only when complete (written beside it,
 * then renamed); on failure, timeout or cancellation nothing is left behind.
 */
export async function extractAudio(path: string, outPath: string, opts: ExtractOptions = {}): Promise<ExtractedAudio> {
  const codec = opts.codec ?? 'opus';
  const info = await probe(path, { signal: opts.signal, ffprobePath: opts.ffprobePath });
  if (!info.hasAudio) throw noAudio(info);
  const part = `${resolve(outPath)}.part`;
  const encode =
    codec === 'opus'
      ? ['-c:a', 'libopus', '-b:a', OPUS_BITRATE, '-vbr', 'constrained', '-application', 'voip', '-f', 'ogg']
      : ['-c:a', 'flac', '-sample_fmt', 's16', '-compression_level', '8', '-f', 'flac'];
  const args = [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-protocol_whitelist', 'file', '-i', input(path),
    '-map', '0:a:0', '-vn', '-sn', '-dn', '-map_metadata', '-1', '-ac', '1', '-ar', '16000', ...encode, '-y', `file:${part}`,
  ];
  try {
    const res = await run(opts.ffmpegPath ?? 'ffmpeg', args, { signal: opts.signal, timeoutMs: opts.timeoutMs ?? Math.max(EXTRACT_MIN_TIMEOUT_MS, (info.durationMs ?? 0) / 2), maxStdout: 64 * 1024 });
    if (res.code !== 0) throw new MediaError('unreadable', `ffmpeg could not extract the audio track (${lastError(res.stderr, resolve(path))}).`);
    const out = await probe(part, { signal: opts.signal, ffprobePath: opts.ffprobePath });
    await rename(part, outPath);
    return { path: outPath, codec, bytes: (await stat(outPath)).size, durationMs: out.durationMs };
  } finally {
    await rm(part, { force: true });
  }
}
