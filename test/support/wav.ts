import { randomInt } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { PCM_SAMPLE_RATE, wavHeader } from '../../src/audio/wav.js';

/** A small valid WAV (16 kHz mono 16-bit PCM): a 440 Hz tone, or silence. */
export function writeWav(path: string, seconds = 0.25, sound: 'tone' | 'silence' = 'tone'): string {
  const data = Buffer.alloc(Math.round(PCM_SAMPLE_RATE * seconds) * 2);
  if (sound === 'tone') for (let i = 0; i < data.length / 2; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / PCM_SAMPLE_RATE) * 8000), i * 2);
  // Each file's content differs (one sample), so imports of several written files are not duplicates of each other.
  if (data.length >= 2) data.writeInt16LE(randomInt(-32768, 32768), 0);
  writeFileSync(path, Buffer.concat([wavHeader(data.length), data]));
  return path;
}
