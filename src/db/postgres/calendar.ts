import { calendarCover, daysSpanned, rangeEdges } from '../model/calendar.js';
import { one, type Queryable } from './sql.js';

// A meeting's start within a from/to range, and a range as the calendar's tags (years, months and days: migration 0007),
// for lists and searches.

/** A from/to range as conditions on a start column (text compared byte by byte), its values given as parameters by `p`. */
export const startedWithin = (range: { from?: string; to?: string }, p: (value: unknown) => string, column: string): string[] => [
  ...(range.from !== undefined ? [`${column} >= ${p(range.from)}`] : []),
  ...(range.to !== undefined ? [`${column} <= ${p(range.to)}`] : []),
];

/** A from/to range as calendar tags (dateTerm): its cover, and the first and last days' meetings that may be outside it. */
export interface DateTerm {
  tokens: string[];
  /** The days from the data's first day to its last (undefined: no meeting has a date). */
  days?: number;
  /** The first and last days' tokens (and `dx`) whose meetings may fall outside the range, and the range as conditions on `t.started_at`. */
  outside?: { edges: string[]; range: (p: (value: unknown) => string) => string[] };
}

/**
 * A from/to range as calendar tags (syntheo_day_tags, migration 0007), as SQLite's dateTerm: the fewest
 * year, month and day tags covering the days strictly between the range's first and last day (every
 * meeting of those days is inside it), plus the first and last day's tags and `dx` (a start that is not a
 * date), whose meetings outside the range (compared exactly, as text) are left out. Undefined without
 * dates; null when it would take too many tags (a search then joins each match to its meeting; a list counts its
 * meetings without a participant fragment's gram).
 */
export async function dateTerm(q: Queryable, range: { from?: string; to?: string }): Promise<DateTerm | undefined | null> {
  if (range.from === undefined && range.to === undefined) return undefined;
  // The first and last days of the data, and whether a meeting of the range's edges is outside it, in one round trip
  // (two, ~0.2 ms each at 100k meetings: the edges were the cover's, which needs those days; rangeEdges' are the same
  // meetings).
  const extreme = (order: 'ASC' | 'DESC') => `(SELECT tag FROM meeting_tags WHERE tag > 'd' AND tag < 'd:' ORDER BY tag ${order} LIMIT 1)`;
  const within = (p: (value: unknown) => string) => startedWithin(range, p, 't.started_at');
  const values: unknown[] = [rangeEdges(range)];
  const probe = within((v) => `$${values.push(v)}`);
  const ends = await one<{ first: string | null; last: string | null; any: boolean }>(
    q,
    `SELECT ${extreme('ASC')} AS first, ${extreme('DESC')} AS last,
            EXISTS (SELECT 1 FROM meeting_tags t WHERE t.tag = ANY($1::text[]) AND NOT (${probe.join(' AND ')})) AS any`,
    values,
  );
  const [first, last] = [ends?.first ?? undefined, ends?.last ?? undefined];
  const cover = calendarCover(range, first, last);
  if (cover === null) return null;
  const { tokens, edges } = cover;
  return { tokens, ...(first !== undefined && last !== undefined && { days: daysSpanned(first, last) }), ...(ends!.any && { outside: { edges, range: within } }) };
}
