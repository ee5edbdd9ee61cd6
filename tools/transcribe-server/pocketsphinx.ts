import { execFile } from 'node:child_process';
import { access, open, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { findProgram } from '../../src/platform/which.js';

// Debian's pocketsphinx (0.8+5prealpha) and ffmpeg, driven as child processes.

export interface RecognizerModel {
  hmm: string;
  lm: string;
  dict: string;
}

export const DEBIAN_EN_US_MODEL: RecognizerModel = {
  hmm: '/usr/share/pocketsphinx/model/en-us/en-us',
  lm: '/usr/share/pocketsphinx/model/en-us/en-us.lm.bin',
  dict: '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict',
};

export interface RecognizedWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
}

/** One pocketsphinx utterance (speech between pauses), fillers removed. */
export interface Utterance {
  start: number;
  end: number;
  words: RecognizedWord[];
}

export class DecodeError extends Error {
  override name = 'DecodeError';
}

const SAMPLE_RATE = 16_000;

/** Throws with the apt-get line to run when a program or the model is missing. */
export async function checkRecognizerInstalled(model: RecognizerModel = DEBIAN_EN_US_MODEL): Promise<void> {
  const missing: string[] = [];
  if (findProgram('ffmpeg') === null) missing.push('ffmpeg (apt-get install ffmpeg)');
  if (findProgram('pocketsphinx_continuous') === null) missing.push('pocketsphinx_continuous (apt-get install pocketsphinx)');
  for (const path of [model.hmm, model.lm, model.dict]) {
    try {
      await access(path, constants.R_OK);
    } catch {
      missing.push(`${path} (apt-get install pocketsphinx-en-us)`);
    }
  }
  if (missing.length > 0) throw new Error(`The pocketsphinx transcription server needs: ${missing.join('; ')}.`);
}

function run(file: string, args: string[], signal?: AbortSignal): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { signal, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err !== null && (err.name === 'AbortError' || typeof err.code === 'string')) {
        reject(err); // aborted, or the program could not be started
        return;
      }
      resolve({ stdout, stderr, code: err === null ? 0 : typeof err.code === 'number' ? err.code : null });
    });
  });
}

/** Any audio (or video with audio) that ffmpeg reads -> 16 kHz mono s16 WAV, what pocketsphinx needs. */
export async function convertToRecognizerWav(input: string, output: string, signal?: AbortSignal): Promise<void> {
  const { code, stderr } = await run(
    'ffmpeg',
    ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', input, '-vn', '-map_metadata', '-1', '-fflags', '+bitexact',
      '-ar', String(SAMPLE_RATE), '-ac', '1', '-c:a', 'pcm_s16le', '-f', 'wav', '-y', output],
    signal,
  );
  if (code !== 0) {
    const reason = stderr.trim().split('\n').filter((l) => l.trim() !== '').pop() ?? 'unknown error';
    throw new DecodeError(reason.replace(input, 'the upload'));
  }
}

/** Seconds of audio in a canonical PCM WAV, from its `data` chunk. */
export async function wavDurationSeconds(path: string): Promise<number> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(head, 0, head.length, 0);
    const size = (await stat(path)).size;
    if (bytesRead < 12 || head.toString('latin1', 0, 4) !== 'RIFF' || head.toString('latin1', 8, 12) !== 'WAVE') {
      throw new DecodeError('not a WAV file');
    }
    let offset = 12;
    let byteRate = SAMPLE_RATE * 2;
    while (offset + 8 <= bytesRead) {
      const id = head.toString('latin1', offset, offset + 4);
      const len = head.readUInt32LE(offset + 4);
      if (id === 'fmt ' && offset + 16 <= bytesRead) byteRate = head.readUInt32LE(offset + 16);
      if (id === 'data') return Math.max(0, size - (offset + 8)) / byteRate;
      offset += 8 + len + (len % 2);
    }
    throw new DecodeError('WAV file has no data chunk');
  } finally {
    await fh.close();
  }
}

export async function recognize(wav: string, model: RecognizerModel = DEBIAN_EN_US_MODEL, signal?: AbortSignal): Promise<Utterance[]> {
  const { code, stdout, stderr } = await run(
    'pocketsphinx_continuous',
    ['-infile', wav, '-hmm', model.hmm, '-lm', model.lm, '-dict', model.dict, '-time', 'yes', '-logfn', '/dev/null'],
    signal,
  );
  if (code !== 0) throw new Error(`pocketsphinx_continuous exited with ${code}: ${stderr.trim().slice(0, 300)}`);
  return parsePocketsphinxTimes(stdout);
}

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e-?\d+)?)$/;

/** Markers, silences and noise the decoder reports but nobody said. */
export function isFiller(token: string): boolean {
  return /^<.*>$/.test(token) || /^\[.*\]$/.test(token) || /^\+\+.*\+\+$/.test(token) || token === '(NULL)';
}

/**
 * `-time yes` prints, per utterance, the hypothesis line then one `word start end confidence` line
 * per token, framed by `<s>` and `</s>`. Alternate pronunciations carry a `(2)` suffix.
 */
export function parsePocketsphinxTimes(stdout: string): Utterance[] {
  const utterances: Utterance[] = [];
  let current: RecognizedWord[] = [];
  let frame: { start: number; end: number } | null = null;
  const flush = (): void => {
    if (current.length > 0) {
      utterances.push({ start: frame?.start ?? current[0]!.start, end: frame?.end ?? current[current.length - 1]!.end, words: current });
    }
    current = [];
    frame = null;
  };
  for (const line of stdout.split('\n')) {
    const m = WORD_LINE.exec(line.trim());
    if (m === null) continue; // hypothesis text lines
    const token = m[1]!;
    const start = Number(m[2]);
    const end = Number(m[3]);
    if (token === '<s>') {
      flush();
      frame = { start, end };
      continue;
    }
    if (token === '</s>') {
      if (frame !== null) frame.end = end;
      flush();
      continue;
    }
    if (isFiller(token)) continue;
    current.push({ word: token.replace(/\(\d+\)$/, ''), start, end, confidence: Number(m[4]) });
  }
  flush();
  return utterances;
}
