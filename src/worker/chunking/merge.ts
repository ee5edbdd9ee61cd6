import type { NewWord } from '../../db/queries/transcripts.js';

// Joins the words of overlapping chunks into one transcript without doubling or losing the words
// heard twice. Consecutive chunks share `overlapMs` of audio; inside that region the cut is made at
// the word both chunks heard (same text, start within MATCH_TOLERANCE_MS) that lies nearest the middle
// of the region, preferring the longest run of agreeing words: before it the earlier chunk's words,
// from it on the later chunk's. When the chunks agree on no word there, the cut is the middle of the
// region by time. Words near either edge of a chunk (cut audio, no context) are thus never used when
// the other chunk heard them from the inside.

const MATCH_TOLERANCE_MS = 300;

export interface ChunkSpan {
  startMs: number;
  endMs: number;
}

/**
 * Feed chunks in order with push(); commit what it returns, in order. It holds back the words in the
 * current chunk's tail (where the next chunk starts) until the next chunk decides them; finish()
 * returns them at the end.
 */
export class OverlapMerger {
  private held: NewWord[] = [];
  private prevEnd: number | null = null;
  private lastStart = -Infinity;

  constructor(private readonly overlapMs: number) {}

  push(words: readonly NewWord[], span: ChunkSpan): NewWord[] {
    const timed = words.filter((w) => w.startMs !== null && w.endMs !== null);
    let out: NewWord[];
    let rest: NewWord[];
    if (this.prevEnd === null) {
      out = [];
      rest = [...timed];
    } else {
      const joined = joinOverlap(this.held, timed, span.startMs, this.prevEnd);
      out = joined.fromPrevious;
      rest = joined.fromNext;
    }
    // The next chunk starts overlapMs before this one ends: words reaching past that point wait for it.
    const tailFrom = span.endMs - this.overlapMs;
    const firstHeld = rest.findIndex((w) => w.endMs! > tailFrom);
    const commit = firstHeld === -1 ? rest : rest.slice(0, firstHeld);
    this.held = firstHeld === -1 ? [] : rest.slice(firstHeld);
    this.prevEnd = span.endMs;
    return this.increasing([...out, ...commit]);
  }

  finish(): NewWord[] {
    const out = this.increasing(this.held);
    this.held = [];
    return out;
  }

  /** Start times strictly increase across chunk joins: a word starting no later than the one before it is a double. */
  private increasing(words: NewWord[]): NewWord[] {
    const out: NewWord[] = [];
    for (const w of words) {
      if (w.startMs! <= this.lastStart) continue;
      this.lastStart = w.startMs!;
      out.push(w);
    }
    return out;
  }
}

export function normalizeToken(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, '');
}

const mid = (w: NewWord): number => (w.startMs! + w.endMs!) / 2;

function same(a: NewWord | undefined, b: NewWord | undefined): boolean {
  return a !== undefined && b !== undefined && normalizeToken(a.text) === normalizeToken(b.text) && normalizeToken(a.text) !== '' && Math.abs(a.startMs! - b.startMs!) <= MATCH_TOLERANCE_MS;
}

/**
 * `previous`: the earlier chunk's words from its tail on; `next`: the later chunk's words.
 * The overlap region is [regionStart, regionEnd].
 */
export function joinOverlap(previous: readonly NewWord[], next: readonly NewWord[], regionStart: number, regionEnd: number): { fromPrevious: NewWord[]; fromNext: NewWord[] } {
  const middle = (regionStart + regionEnd) / 2;
  const head = next.filter((w) => w.startMs! < regionEnd + MATCH_TOLERANCE_MS).length;
  let best: { i: number; j: number; run: number; distance: number } | null = null;
  for (let i = 0; i < previous.length; i++) {
    for (let j = 0; j < head; j++) {
      if (!same(previous[i], next[j])) continue;
      let run = 1;
      while (same(previous[i + run], next[j + run])) run++;
      let back = 1;
      while (i - back >= 0 && j - back >= 0 && same(previous[i - back], next[j - back])) back++;
      const total = run + back - 1;
      const distance = Math.abs(mid(previous[i]!) - middle);
      if (best === null || total > best.run || (total === best.run && distance < best.distance)) best = { i, j, run: total, distance };
    }
  }
  if (best !== null) return { fromPrevious: previous.slice(0, best.i), fromNext: next.slice(best.j) };

  // No word heard by both: cut by time. When only one chunk heard anything in the region, keep its words.
  const prevIn = previous.filter((w) => w.endMs! > regionStart);
  const nextIn = next.filter((w) => w.startMs! < regionEnd);
  if (nextIn.length === 0) return { fromPrevious: [...previous], fromNext: next.filter((w) => w.startMs! >= regionEnd) };
  if (prevIn.length === 0) return { fromPrevious: [...previous], fromNext: [...next] };
  return { fromPrevious: previous.filter((w) => mid(w) < middle), fromNext: next.filter((w) => mid(w) >= middle) };
}
