// Unified diff of two texts, line by line, as `diff -u` prints it. jsdiff does the comparison (Myers
// in linear space); the edit length and the time it may take are bounded, because a proposal is
// untrusted input and its diff is computed on every read of it.
import { structuredPatch } from 'diff';

export interface DiffLimits {
  /** Most lines removed plus added that are compared exactly; beyond it, the fallback. */
  maxEditLines: number;
  /** Wall-clock budget of the exact comparison. */
  timeoutMs: number;
}

// jsdiff's cost grows with edits^2 (500 lines changed: ~60 ms, 1,000: ~200 ms); nobody reviews more line by line.
export const DIFF_LIMITS: Readonly<DiffLimits> = Object.freeze({ maxEditLines: 500, timeoutMs: 500 });

const NO_NEWLINE = '\\ No newline at end of file';

/** Lines with their line ends kept, so that a missing final newline shows. */
function splitLines(text: string): string[] {
  return text === '' ? [] : text.split(/(?<=\n)/);
}

function hunkHeader(oldStart: number, oldLines: number, newStart: number, newLines: number): string {
  // GNU diff: a zero-length range names the line before it; a length of 1 is left out.
  const range = (start: number, n: number): string => `${n === 0 ? start - 1 : start}${n === 1 ? '' : `,${n}`}`;
  return `@@ -${range(oldStart, oldLines)} +${range(newStart, newLines)} @@`;
}

/** Lines of both texts, and how many first and last lines they have in common. */
function commonEnds(before: string, after: string): { a: string[]; b: string[]; prefix: number; suffix: number } {
  const a = splitLines(before);
  const b = splitLines(after);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  return { a, b, prefix, suffix };
}

/**
 * A lower bound of the lines any diff removes plus adds: those of one side found nowhere on the other.
 * Linear, so a wholesale rewrite goes straight to the fallback instead of spending the time budget.
 */
function minEdits({ a, b, prefix, suffix }: ReturnType<typeof commonEnds>): number {
  const midA = a.slice(prefix, a.length - suffix);
  const midB = b.slice(prefix, b.length - suffix);
  const inA = new Set(midA);
  const inB = new Set(midB);
  let n = 0;
  for (const line of midA) if (!inB.has(line)) n++;
  for (const line of midB) if (!inA.has(line)) n++;
  return n;
}

/** One hunk over the changed middle (with `context` common lines around it), all removed then all added. */
function wholeHunk({ a, b, prefix, suffix }: ReturnType<typeof commonEnds>, context: number): string[] {
  const start = Math.max(0, prefix - context);
  const trailing = Math.min(suffix, context);
  const lines: string[] = [];
  const push = (mark: string, line: string): void => {
    if (line.endsWith('\n')) lines.push(mark + line.slice(0, -1));
    else lines.push(mark + line, NO_NEWLINE);
  };
  for (let i = start; i < prefix; i++) push(' ', a[i]!);
  for (let i = prefix; i < a.length - suffix; i++) push('-', a[i]!);
  for (let i = prefix; i < b.length - suffix; i++) push('+', b[i]!);
  for (let i = a.length - suffix; i < a.length - suffix + trailing; i++) push(' ', a[i]!);
  const oldLines = a.length - suffix + trailing - start;
  const newLines = b.length - suffix + trailing - start;
  return [hunkHeader(start + 1, oldLines, start + 1, newLines), ...lines];
}

/**
 * `--- a/<label>` / `+++ b/<label>` headers and hunks with `context` lines around changes; identical
 * texts give an empty string. When the texts differ by more than the limits allow, the first line says
 * so and one hunk shows the changed part of the base removed and that of the proposal added: still a
 * unified diff base -> proposed that `patch` applies.
 */
export function unifiedDiff(before: string, after: string, label: string, context = 3, limits: DiffLimits = DIFF_LIMITS): string {
  if (before === after) return '';
  const headers = [`--- a/${label}`, `+++ b/${label}`];
  const ends = commonEnds(before, after);
  // Only additions or only removals, in one block: that block is the diff, however long.
  if (ends.prefix + ends.suffix === Math.min(ends.a.length, ends.b.length)) return `${[...headers, ...wholeHunk(ends, context)].join('\n')}\n`;
  const patch =
    minEdits(ends) > limits.maxEditLines
      ? undefined
      : structuredPatch(label, label, before, after, undefined, undefined, { context, maxEditLength: limits.maxEditLines, timeout: limits.timeoutMs });
  if (patch === undefined) {
    const note = `(The changes are too many to compare line by line: more than ${limits.maxEditLines} lines differ or the comparison took over ${limits.timeoutMs} ms. The changed part is shown removed, then added in full.)`;
    return `${[note, ...headers, ...wholeHunk(ends, context)].join('\n')}\n`;
  }
  const out = headers;
  for (const h of patch.hunks) out.push(hunkHeader(h.oldStart, h.oldLines, h.newStart, h.newLines), ...h.lines);
  return `${out.join('\n')}\n`;
}
