// Every page of a list_meetings answer compared with the rows and total it must have (test/db's list tests).
import { expect } from 'vitest';
import type { Sqlite } from '../../src/db/open.js';
import { listMeetings, type MeetingFilter } from '../../src/db/queries/meetings.js';

/** Each page at each limit (and one past the end) holds `want`'s ids in order, with `want.length` as the total. */
export function expectListPages(s: Sqlite, filter: MeetingFilter, want: string[], limits: number[]): void {
  for (const limit of limits)
    for (let offset = 0; offset <= want.length + 1; offset += limit) {
      const got = listMeetings(s, filter, { limit, offset });
      const label = `${JSON.stringify(filter)} limit ${limit} offset ${offset}`;
      expect(got.meetings.map((m) => m.id), label).toEqual(want.slice(offset, offset + limit));
      expect(got.pagination.total, label).toBe(want.length);
    }
}
