// The calendar cover of a from/to range, shared by both engines' search: the tags hold each meeting's UTC
// start day, month and year (`d20260517 m202605 y2026`, `dx` when the start is not a date).

/** Past this many calendar tokens (meetings spread over centuries), a date range is checked meeting by meeting instead. */
export const MAX_DATE_TOKENS = 200;

const DAY_MS = 86_400_000;
/** A UTC day as milliseconds (years 0-99 included, which Date.UTC would read as 1900-1999; month 12 is January of the next year). */
function utcDay(year: number, monthIndex: number, day: number): number {
  const d = new Date(0);
  d.setUTCFullYear(year, monthIndex, day);
  return d.getTime();
}
/** `YYYY-MM-DD` of a UTC day as milliseconds. */
const dayMs = (day: string) => utcDay(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
function dayOf(ms: number): { y: string; m: string; d: string } {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return { y: String(d.getUTCFullYear()).padStart(4, '0'), m: two(d.getUTCMonth() + 1), d: two(d.getUTCDate()) };
}
const dayToken = (ms: number) => {
  const { y, m, d } = dayOf(ms);
  return `d${y}${m}${d}`;
};
/** A token's day `YYYY-MM-DD` as milliseconds. */
const tokenMs = (token: string) => dayMs(`${token.slice(1, 5)}-${token.slice(5, 7)}-${token.slice(7, 9)}`);

/** The days from the first day token to the last, both counted (`d20260101` to `d20261231`: 365). */
export const daysSpanned = (first: string, last: string): number => Math.round((tokenMs(last) - tokenMs(first)) / DAY_MS) + 1;

/**
 * Every token calendarCover may give as an edge of `range`, whatever days hold meetings: `dx` and its first and last
 * days' tokens. A token outside the days holding meetings has no meeting, so a test of these edges' meetings answers as
 * one of the cover's would, without the data's first and last days read first.
 */
export function rangeEdges(range: { from?: string; to?: string }): string[] {
  const days = [range.from, range.to].flatMap((t) => (t === undefined ? [] : [dayToken(dayMs(t.slice(0, 10)))]));
  return ['dx', ...new Set(days)];
}

/**
 * The fewest year, month and day tokens covering the days strictly between the range's first and last day
 * (every meeting of those days is inside the range, whatever the time of day), and either of those held whole (from
 * its first instant to its last), plus `edges`: the first and last day's tokens and `dx`, whose meetings may fall
 * outside the range (the caller checks those exactly: a start stored as `2026-05-17 08:00` is the day's, and compares
 * as before its first instant). A day held whole is an edge all the same, covered with the days between: a month asked
 * as its first and last days is its month's token (one tag read, not 31: SQLite's FTS5 walked the 31 days' OR in ~1.5
 * ms at 100k meetings, at each statement of a search).
 * `first` and `last` are the first and last day tokens that hold meetings (undefined: none); the cover
 * does not reach past them. Null when it would take more than MAX_DATE_TOKENS tokens.
 */
export function calendarCover(range: { from?: string; to?: string }, first: string | undefined, last: string | undefined): { tokens: string[]; edges: string[] } | null {
  const tokens: string[] = ['dx'];
  const edges: string[] = ['dx'];
  if (first === undefined || last === undefined) return { tokens, edges };
  const fromDay = range.from === undefined ? undefined : dayMs(range.from.slice(0, 10));
  const toDay = range.to === undefined ? undefined : dayMs(range.to.slice(0, 10));
  edges.push(...rangeEdges(range).filter((t) => t !== 'dx' && tokenMs(t) >= tokenMs(first) && tokenMs(t) <= tokenMs(last)));
  const fromWhole = range.from?.endsWith('T00:00:00.000Z') === true;
  const toWhole = range.to?.endsWith('T23:59:59.999Z') === true;
  let day = Math.max(fromDay === undefined ? -Infinity : fromDay + (fromWhole ? 0 : DAY_MS), tokenMs(first));
  const end = Math.min(toDay === undefined ? Infinity : toDay - (toWhole ? 0 : DAY_MS), tokenMs(last));
  // The edges not covered with the days between.
  tokens.push(...edges.slice(1).filter((t) => tokenMs(t) < day || tokenMs(t) > end));
  while (day <= end) {
    const { y, m, d } = dayOf(day);
    const nextYear = utcDay(Number(y) + 1, 0, 1);
    const nextMonth = utcDay(Number(y), Number(m), 1);
    // A whole year, else a whole month, else the day.
    const [token, next] =
      m === '01' && d === '01' && nextYear - DAY_MS <= end ? [`y${y}`, nextYear] : d === '01' && nextMonth - DAY_MS <= end ? [`m${y}${m}`, nextMonth] : [`d${y}${m}${d}`, day + DAY_MS];
    tokens.push(token);
    day = next;
    if (tokens.length > MAX_DATE_TOKENS) return null;
  }
  return { tokens, edges };
}

/**
 * A cover whose months listed day by day (more than half of a month's days) are given as the month less the days of
 * it the cover leaves out: the same meetings (a meeting's month token is its day's month), fewer tokens to read one by
 * one where the month is read cheaply as a whole (the search bitmaps hold the months, not the days). `months`: the
 * month tokens that may be used.
 */
export function monthsLessDays(tokens: string[], months: (month: string) => boolean): { tokens: string[]; less: string[] } {
  const days = new Map<string, Set<string>>();
  for (const t of tokens) if (/^d\d{8}$/.test(t)) days.set(t.slice(1, 7), (days.get(t.slice(1, 7)) ?? new Set()).add(t));
  const kept = new Set(tokens);
  const less: string[] = [];
  for (const [month, covered] of days) {
    const length = new Date(utcDay(Number(month.slice(0, 4)), Number(month.slice(4, 6)), 0)).getUTCDate();
    if (covered.size * 2 <= length || !months(`m${month}`)) continue;
    for (const day of covered) kept.delete(day);
    kept.add(`m${month}`);
    for (let d = 1; d <= length; d++) if (!covered.has(`d${month}${String(d).padStart(2, '0')}`)) less.push(`d${month}${String(d).padStart(2, '0')}`);
  }
  return { tokens: [...kept], less };
}
