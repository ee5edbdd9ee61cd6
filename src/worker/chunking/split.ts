import { spawn } from 'node:child_process';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { JobFailure } from '../errors.js';
import { CHUNK_BYTES_PER_SECOND, CHUNK_SAMPLE_RATE } from './plan.js';
import { wavHeader } from '../../audio/wav.js';

// ffmpeg decodes the recording once, from the start, to 16 kHz mono PCM on a pipe; we cut the samples
// into overlapping WAV files as they arrive. Exact for every format (no seeking), and the pipe's
// back-pressure stops ffmpeg while the consumer is busy, so only the chunks in flight are on disk.

export interface AudioChunk {
  index: number;
  path: string;
  /** Position of the chunk's first sample in the recording. */
  startMs: number;
  durationMs: number;
}

export interface SplitOptions {
  chunkMs: number;
  overlapMs: number;
  dir: string;
  signal: AbortSignal;
  ffmpeg?: string;
}

const bytesFor = (ms: number): number => Math.round((ms / 1000) * CHUNK_SAMPLE_RATE) * 2;

interface OpenChunk {
  index: number;
  /** Byte offset of its first sample in the decoded stream. */
  from: number;
  /** Exclusive end offset (the nominal end: the last chunk ends earlier). */
  to: number;
  written: number;
  file: FileHandle;
  path: string;
}

/** Yields chunk k once the decoded stream has passed its end (or ended). The consumer deletes the files. */
export async function* splitIntoChunks(input: string, opts: SplitOptions): AsyncGenerator<AudioChunk> {
  const step = bytesFor(opts.chunkMs);
  const overlap = bytesFor(opts.overlapMs);
  const proc = spawn(
    opts.ffmpeg ?? 'ffmpeg',
    ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', input, '-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(CHUNK_SAMPLE_RATE), '-c:a', 'pcm_s16le', '-f', 's16le', 'pipe:1'],
    { stdio: ['ignore', 'pipe', 'pipe'], signal: opts.signal },
  );
  let stderr = '';
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<{ code: number | null; error?: Error }>((resolve) => {
    proc.once('error', (error) => resolve({ code: null, error }));
    proc.once('close', (code) => resolve({ code }));
  });

  const open_: OpenChunk[] = [];
  let next = 0; // index of the next chunk to open
  let pos = 0; // bytes decoded so far
  const startOf = (k: number): number => (k === 0 ? 0 : k * step - overlap);

  const openChunk = async (k: number): Promise<void> => {
    const path = join(opts.dir, `chunk-${String(k).padStart(5, '0')}.wav`);
    const file = await open(path, 'w', 0o600);
    await file.write(wavHeader(0), 0, 44, 0);
    open_.push({ index: k, from: startOf(k), to: (k + 1) * step, written: 0, file, path });
  };
  const closeChunk = async (c: OpenChunk): Promise<AudioChunk> => {
    await c.file.write(wavHeader(c.written), 0, 44, 0);
    await c.file.close();
    return { index: c.index, path: c.path, startMs: Math.round((c.from / CHUNK_BYTES_PER_SECOND) * 1000), durationMs: Math.round((c.written / CHUNK_BYTES_PER_SECOND) * 1000) };
  };

  try {
    for await (const data of proc.stdout as AsyncIterable<Buffer>) {
      let at = 0;
      while (at < data.length) {
        if (pos >= startOf(next)) await openChunk(next++);
        // Write up to the next event: a chunk opening or one ending.
        const until = Math.min(startOf(next), ...open_.map((c) => c.to));
        const n = Math.min(data.length - at, Math.max(0, until - pos));
        if (n > 0) {
          const slice = data.subarray(at, at + n);
          for (const c of open_) {
            await c.file.write(slice, 0, slice.length, 44 + c.written);
            c.written += slice.length;
          }
          at += n;
          pos += n;
        }
        while (open_.length > 0 && pos >= open_[0]!.to) yield await closeChunk(open_.shift()!);
      }
    }
    const { code, error } = await exited;
    opts.signal.throwIfAborted();
    if (error !== undefined) throw new JobFailure(`ffmpeg could not be started (${(error as NodeJS.ErrnoException).code ?? error.message}). Install ffmpeg and import the recording again with a new request_key.`);
    if (code !== 0) {
      const said = stderr.trim().split('\n').filter((l) => l.trim() !== '').pop() ?? `exit code ${code}`;
      throw new JobFailure(`ffmpeg could not decode the recording for chunked transcription (${said.replace(input, 'the file')}). Check that the file plays.`);
    }
    // The end: the chunk in progress is the last one, unless it only repeats the previous chunk's tail.
    for (const c of open_.splice(0)) {
      const onlyOverlap = c.index > 0 && c.written <= overlap;
      const chunk = await closeChunk(c);
      if (!onlyOverlap || c.index === 0) yield chunk;
      else await rm(chunk.path, { force: true });
    }
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    for (const c of open_) await c.file.close().catch(() => {});
  }
}
