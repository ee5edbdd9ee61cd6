import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { fixturePath } from './speech-fixtures.js';
import { wavHeader } from '../../src/audio/wav.js';

// A long recording made of the spoken fixtures laid on digital silence at chosen times: the WAV
// fixtures are 16 kHz mono 16-bit, so placing a passage is copying its samples at an offset.

const execFileAsync = promisify(execFile);
const BYTES_PER_MS = 32;

export interface Placement {
  passage: string;
  atMs: number;
}

async function pcm(passage: string): Promise<Buffer> {
  const wav = await readFile(fixturePath(passage, 'wav'));
  if (wav.toString('latin1', 36, 40) !== 'data') throw new Error(`${passage}.wav: expected the canonical 44-byte header`);
  return wav.subarray(44);
}

/** Writes `out` (format from its extension, via ffmpeg); returns each passage's length in ms. */
export async function buildLongRecording(out: string, placements: Placement[], totalMs: number): Promise<Map<string, number>> {
  const samples = new Map<string, Buffer>();
  for (const p of placements) if (!samples.has(p.passage)) samples.set(p.passage, await pcm(p.passage));
  const body = Buffer.alloc(totalMs * BYTES_PER_MS);
  for (const p of placements) samples.get(p.passage)!.copy(body, p.atMs * BYTES_PER_MS);
  const header = wavHeader(body.length);
  const wav = `${out}.tmp.wav`;
  await writeFile(wav, Buffer.concat([header, body]));
  try {
    await execFileAsync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', wav, out]);
  } finally {
    await rm(wav, { force: true });
  }
  return new Map([...samples].map(([name, b]) => [name, b.length / BYTES_PER_MS]));
}
