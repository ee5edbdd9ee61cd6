import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The spoken fixtures made by scripts/make-fixtures.sh; see test/fixtures/speech/README.md.

export const SPEECH_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'speech');

export const FORMATS = ['wav', 'mp3', 'ogg', 'mp4', 'm4a', 'flac', 'webm', 'aac'] as const;
export type Format = (typeof FORMATS)[number];

export interface Passage {
  name: string;
  text: string;
  /** Words pocketsphinx recognises in every format. */
  keywords: string[];
}

export const PASSAGES: Passage[] = Object.entries(
  JSON.parse(readFileSync(join(SPEECH_DIR, 'passages.json'), 'utf8')) as Record<string, { text: string; keywords: string[] }>,
).map(([name, p]) => ({ name, ...p }));

export function fixturePath(passage: string, format: Format): string {
  return join(SPEECH_DIR, `${passage}.${format}`);
}
