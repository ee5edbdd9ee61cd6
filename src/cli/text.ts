// Human output helpers shared by the command groups: tables, times, sizes, colours, paging hints.
import type { Pagination } from '../db/queries/types.js';

export interface Column<T> {
  header: string;
  value(row: T): string;
  /** Longer cells are cut with an ellipsis. */
  max?: number;
  align?: 'left' | 'right';
}

/** An aligned table: header row, then one line per row, columns separated by two spaces. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((row) => columns.map((c) => cut(oneLine(c.value(row)), c.max)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (columns[i]!.align === 'right' ? v.padStart(widths[i]!) : i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, ' ');
}

export function cut(s: string, max?: number): string {
  return max !== undefined && s.length > max ? `${s.slice(0, max - 1)}…` : s;
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
export function elapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * `Showing 21–40 of 45. Next page: --offset 40` under a list; `No X.` handled by the caller.
 */
export function pageFooter(p: Pagination, noun: string): string {
  if (p.returned === 0) return p.total > 0 ? `No ${noun} at offset ${p.offset} (there are ${p.total}).` : '';
  if (p.offset === 0 && p.next_offset === undefined) return `${p.total} ${noun}.`;
  const range = `${p.offset + 1}–${p.offset + p.returned}`;
  return `Showing ${range} of ${p.total} ${noun}.${p.next_offset !== undefined ? ` Next page: --offset ${p.next_offset}` : ''}`;
}

/** Colours for a terminal; plain text when stdout is not one or NO_COLOR is set (https://no-color.org). */
export interface Paint {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

export function paint(tty: boolean, env: NodeJS.ProcessEnv = process.env): Paint {
  const on = tty && (env.NO_COLOR === undefined || env.NO_COLOR === '');
  const sgr = (open: number, close: number) => (s: string) => (on ? `\x1b[${open}m${s}\x1b[${close}m` : s);
  return { red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39), bold: sgr(1, 22), dim: sgr(2, 22) };
}

/** `Label:    value` lines, labels padded to the longest. */
export function fields(rows: readonly [string, string][]): string {
  const width = Math.max(...rows.map(([k]) => k.length)) + 2;
  return rows.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}`).join('\n');
}
