// The export record's transcript segments and how a record's ID is shown: pure, shared by the Store,
// the CLI (load) and the demo.
import { clip } from '../../text/clip.js';
import type { ExportSegment } from '../queries/types.js';

/** A segment ends where the speaker changes, or after this many words, so exports stay readable. */
export const SEGMENT_MAX_WORDS = 100;

export type WordTuple = [idx: number, text: string, start_ms: number | null, end_ms: number | null, speaker: string | null];

/** Speaker turns of at most SEGMENT_MAX_WORDS words; load() turns them back into the same word rows. */
export function toSegments(words: Iterable<WordTuple>): ExportSegment[] {
  const segments: ExportSegment[] = [];
  let current: ExportSegment | undefined;
  let count = 0;
  for (const [, text, start, end, speaker] of words) {
    if (!current || current.speaker !== speaker || count >= SEGMENT_MAX_WORDS) {
      current = { speaker, start_ms: start, end_ms: end, text, times: [[start, end]] };
      segments.push(current);
      count = 1;
    } else {
      current.text += ` ${text}`;
      current.times.push([start, end]);
      current.end_ms = end;
      count++;
    }
  }
  return segments;
}

/** An ID from a file, as a message may show it: quoted and clipped (60 characters and an ellipsis) unless it is plain. */
export function shownId(id: string): string {
  return /^[A-Za-z0-9_-]{1,100}$/.test(id) ? id : JSON.stringify(clip(id, 61));
}
