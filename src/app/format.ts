import { html, query, type Html } from './html.js';
import type { Pagination } from '../db/store.js';

// Small renderings shared by the pages.

const two = (n: number) => String(n).padStart(2, '0');

/** `2026-01-05 09:00` in the machine's time zone: the browser and the server are the same machine. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

export function timeTag(iso: string | null | undefined): Html {
  return iso ? html`<time datetime="${iso}">${when(iso)}</time>` : html`—`;
}

/** Previous/next links that keep the other parameters; `total` shown. */
export function pager(path: string, params: Record<string, string | undefined>, p: Pagination, noun: string, fragment = ''): Html {
  if (p.total === 0) return html``;
  const from = p.returned === 0 ? 0 : p.offset + 1;
  const prev = p.offset > 0 ? Math.max(0, p.offset - p.limit) : null;
  return html`<nav class="pager" aria-label="Pages of ${noun}">
${prev !== null ? html`<a href="${path}${query({ ...params, offset: prev || undefined })}${fragment}" rel="prev">Previous</a>` : ''}
<span>${from}–${p.offset + p.returned} of ${p.total} ${noun}</span>
${p.next_offset !== undefined ? html`<a href="${path}${query({ ...params, offset: p.next_offset })}${fragment}" rel="next">Next</a>` : ''}
</nav>`;
}

/** A non-negative integer from a query parameter, else the fallback. */
export function intParam(value: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined || !/^\d{1,15}$/.test(value)) return fallback;
  return Math.min(Number(value), max);
}

/** A query parameter as typed, bounded (nothing from outside is unbounded), or undefined when empty. */
export function textParam(value: string | undefined, max = 200): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().slice(0, max);
  return v === '' ? undefined : v;
}

/** `**bold**` marks of a search snippet as <mark>, the rest escaped. */
export function snippet(text: string): Html {
  const parts = text.split('**');
  return html`${parts.map((part, i) => (i % 2 === 1 ? html`<mark>${part}</mark>` : part))}`;
}
