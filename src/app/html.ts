// The one way the app makes HTML: the `html` tag escapes every interpolated value unless it is itself
// Html made by this tag. There is no way to mark an arbitrary string as safe: text from a meeting
// (titles, notes, transcripts, names) can only ever reach a page as escaped text.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const made = Symbol('html');

export class Html {
  /** Only the tag below can make one. */
  constructor(
    readonly value: string,
    key: symbol,
  ) {
    if (key !== made) throw new TypeError('Html is made with the html`` tag only');
  }
  toString(): string {
    return this.value;
  }
}

/** A value that may appear in a template: text (escaped), numbers, Html, lists of them; nothing for null/undefined/false. */
export type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false || part === true) return '';
  if (part instanceof Html) return part.value;
  if (typeof part === 'number') return String(part);
  if (typeof part === 'string') return escapeHtml(part);
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  // Anything else that slipped past the types (a Date, an object) is text like any other.
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out, made);
}

/** Joins parts with a separator (both escaped as usual). */
export function join(parts: readonly Part[], separator: Part = ''): Html {
  return new Html(parts.map(render).join(render(separator)), made);
}

/** Query string for a link: `?a=1&b=x` from the defined, non-empty entries (values URL-encoded; the tag escapes the `&`). */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
