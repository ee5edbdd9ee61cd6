import type { NewWord } from '../../db/model/transcripts.js';

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

/**
 * Word pairs compared at most, past which the chunks are cut by time. Speech puts a few words within
 * MATCH_TOLERANCE_MS of each other, so real overlaps compare some dozens of pairs; only words stacked
 * at one instant (a broken server) come near this.
 */
const MAX_COMPARED_PAIRS = 1_000_000;

function startsIncrease(words: readonly NewWord[]): boolean {
  for (let k = 1; k < words.length; k++) if (words[k]!.startMs! < words[k - 1]!.startMs!) return false;
  return true;
}

/**
 * `previous`: the earlier chunk's words from its tail on; `next`: the later chunk's words.
 * The overlap region is [regionStart, regionEnd].
 * Two words agree when they say the same and start within MATCH_TOLERANCE_MS: for time-ordered words
 * those of `next` that can agree with one of `previous` form a window found by two pointers, and the
 * agreeing runs through each pair are counted once along their diagonal (forward and backward), so
 * the work grows with the pairs in those windows, not with the cube of the words.
 */
export function joinOverlap(previous: readonly NewWord[], next: readonly NewWord[], regionStart: number, regionEnd: number): { fromPrevious: NewWord[]; fromNext: NewWord[] } {
  const middle = (regionStart + regionEnd) / 2;
  const best = bestAgreement(previous, next, regionEnd + MATCH_TOLERANCE_MS, middle);
  if (best !== null) return { fromPrevious: previous.slice(0, best.i), fromNext: next.slice(best.j) };

  // No word heard by both: cut by time. When only one chunk heard anything in the region, keep its words.
  const prevIn = previous.filter((w) => w.endMs! > regionStart);
  const nextIn = next.filter((w) => w.startMs! < regionEnd);
  if (nextIn.length === 0) return { fromPrevious: [...previous], fromNext: next.filter((w) => w.startMs! >= regionEnd) };
  if (prevIn.length === 0) return { fromPrevious: [...previous], fromNext: [...next] };
  return { fromPrevious: previous.filter((w) => mid(w) < middle), fromNext: next.filter((w) => mid(w) >= middle) };
}

/**
 * The pair (i, j) both chunks heard with the longest run of agreeing words through it, then the one
 * nearest `middle`; j only among the words of `next` starting before `headEnd`. Null when none agree.
 */
function bestAgreement(previous: readonly NewWord[], next: readonly NewWord[], headEnd: number, middle: number): { i: number; j: number } | null {
  const n = previous.length;
  const m = next.length;
  if (n === 0 || m === 0) return null;
  const a = previous.map((w) => normalizeToken(w.text));
  const b = next.map((w) => normalizeToken(w.text));
  // Window [lo[i], hi[i]) of `next` that may agree with previous[i]; all of it when the times are not ordered.
  const lo = new Int32Array(n);
  const hi = new Int32Array(n).fill(m);
  if (startsIncrease(previous) && startsIncrease(next)) {
    let l = 0;
    let h = 0;
    for (let i = 0; i < n; i++) {
      const t = previous[i]!.startMs!;
      while (l < m && next[l]!.startMs! < t - MATCH_TOLERANCE_MS) l++;
      if (h < l) h = l;
      while (h < m && next[h]!.startMs! <= t + MATCH_TOLERANCE_MS) h++;
      lo[i] = l;
      hi[i] = h;
    }
  }
  let pairs = 0;
  for (let i = 0; i < n; i++) pairs += hi[i]! - lo[i]!;
  if (pairs > MAX_COMPARED_PAIRS) return null;

  const agree = (i: number, j: number): boolean =>
    a[i] !== '' && a[i] === b[j] && Math.abs(previous[i]!.startMs! - next[j]!.startMs!) <= MATCH_TOLERANCE_MS;
  // forward[i][j - lo[i]]: agreeing words from (i, j) on along the diagonal; backward likewise, back.
  const at = (rows: Int32Array[], i: number, j: number): number => (i < 0 || i >= n || j < lo[i]! || j >= hi[i]! ? 0 : rows[i]![j - lo[i]!]!);
  const forward: Int32Array[] = new Array<Int32Array>(n);
  for (let i = n - 1; i >= 0; i--) {
    const row = new Int32Array(hi[i]! - lo[i]!);
    for (let j = lo[i]!; j < hi[i]!; j++) if (agree(i, j)) row[j - lo[i]!] = 1 + at(forward, i + 1, j + 1);
    forward[i] = row;
  }
  const backward: Int32Array[] = new Array<Int32Array>(n);
  let best: { i: number; j: number; run: number; distance: number } | null = null;
  for (let i = 0; i < n; i++) {
    const row = new Int32Array(hi[i]! - lo[i]!);
    backward[i] = row;
    for (let j = lo[i]!; j < hi[i]!; j++) {
      if (!agree(i, j)) continue;
      row[j - lo[i]!] = 1 + at(backward, i - 1, j - 1);
      if (next[j]!.startMs! >= headEnd) continue;
      const run = forward[i]![j - lo[i]!]! + row[j - lo[i]!]! - 1;
      const distance = Math.abs(mid(previous[i]!) - middle);
      if (best === null || run > best.run || (run === best.run && distance < best.distance)) best = { i, j, run, distance };
    }
  }
  return best;
}
