// Shared by the benchmarks: quantiles and the one table `npm run bench` prints.

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

export interface Row {
  /** What was measured. */
  name: string;
  /** The value shown, already formatted (e.g. "0.41 ms"). */
  value: string;
  /** Extra figures (p99, ratio ...). */
  detail?: string;
  /** The budget, in words ("<= 1.5x baseline"). */
  budget?: string;
  /** Whether the budget is met; undefined when there is none. */
  ok?: boolean;
}

export function printTable(title: string, rows: readonly Row[]): string {
  const headers = ['measure', 'value', 'detail', 'budget', ''];
  const cells = rows.map((r) => [r.name, r.value, r.detail ?? '', r.budget ?? '', r.ok === undefined ? '' : r.ok ? 'ok' : 'OVER']);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
  return [`### ${title}`, '', line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

export const ms = (v: number, digits = 2): string => `${v.toFixed(digits)} ms`;
