// Human output helpers shared by the command groups: tables, times, sizes, colours, paging hints.
import stringWidth from 'string-width';
import type { Pagination } from '../db/queries/types.js';
import { neutralise, unmarked } from './terminal.js';

export { paint, type Paint } from './terminal.js';

export interface Column<T> {
  header: string;
  value(row: T): string;
  /** Longer cells are cut with an ellipsis. */
  max?: number;
  align?: 'left' | 'right';
}

/**
 * An aligned table: header row, then one line per row, columns separated by two spaces. Cells are
 * neutralised here (not only at output) so that widths are those of what the terminal shows.
 */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((row) => columns.map((c) => cut(neutralise(oneLine(c.value(row))), c.max)));
  const widths = columns.map((c, i) => Math.max(width(c.header), ...cells.map((r) => width(r[i]!))));
  const fill = (v: string, i: number) => ' '.repeat(Math.max(0, widths[i]! - width(v)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i]!.align === 'right' ? fill(v, i) + v : i === values.length - 1 ? v : v + fill(v, i)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ').replace(/\t/g, ' ');
}

/** Columns a string takes on a terminal (CJK and emoji count 2, combining marks 0), colour marks aside. */
export function width(s: string): number {
  return stringWidth(unmarked(s));
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** At most `max` columns, cut between graphemes (never inside an emoji or a surrogate pair), with `…`. */
export function cut(s: string, max?: number): string {
  if (max === undefined || width(s) <= max) return s;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(s)) {
    const w = stringWidth(segment);
    if (used + w > max - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** `2026-01-05 09:00` (UTC): short enough for a table column. */
export function shortTime(iso: string | null): string {
  return iso === null ? '—' : `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/** `3 min ago`, `2 h ago`, `5 days ago` (or `in 3 min` for a future time). */
export function ago(iso: string | null, now = Date.now()): string {
  if (iso === null) return '—';
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  return relative(Math.abs(ms), ms < 0);
}

export function relative(ms: number, future = false): string {
  const s = Math.round(ms / 1000);
  let text: string;
  if (s < 5) return 'just now';
  if (s < 60) text = `${s} s`;
  else if (s < 3600) text = `${Math.round(s / 60)} min`;
  else if (s < 86_400) text = `${Math.round(s / 3600)} h`;
  else text = `${Math.round(s / 86_400)} days`;
  return future ? `in ${text}` : `${text} ago`;
}

/** `0:07`, `1:02:03`: elapsed time for progress lines. */
export { clock as elapsed } from '../text/clock.js';

export { formatSize as bytes } from '../text/size.js';

/** A noun for a count: its singular, and its plural when not the singular plus `s`. */
export type Noun = string | readonly [one: string, many: string];

/** The noun alone, agreeing with n: `noun(1, 'match')` is `match`, `noun(2, ['match', 'matches'])` is `matches`. */
export function noun(n: number, word: Noun): string {
  const [one, many] = typeof word === 'string' ? [word, `${word}s`] : word;
  return n === 1 ? one : many;
}

/** `1 meeting`, `2 meetings`, `0 meetings`: the one helper for every count printed to a person. */
export function plural(n: number, word: Noun): string {
  return `${n} ${noun(n, word)}`;
}

/**
 * `Showing 21–40 of 45 meetings. Next page: --offset 40` under a list; `No X.` handled by the caller.
 * `word` is the singular (or [singular, plural]).
 */
export function pageFooter(p: Pagination, word: Noun): string {
  if (p.returned === 0) return p.total > 0 ? `No ${noun(0, word)} at offset ${p.offset} (there ${p.total === 1 ? 'is' : 'are'} ${p.total}).` : '';
  if (p.offset === 0 && p.next_offset === undefined) return `${plural(p.total, word)}.`;
  const range = `${p.offset + 1}–${p.offset + p.returned}`;
  return `Showing ${range} of ${plural(p.total, word)}.${p.next_offset !== undefined ? ` Next page: --offset ${p.next_offset}` : ''}`;
}

/** `Label:    value` lines, labels padded to the longest. */
export function fields(rows: readonly [string, string][]): string {
  const labelWidth = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${`${k}:`.padEnd(labelWidth)}${v}`).join('\n');
}
