// The page past the search's window (PostgreSQL): read from where the window's statement found the page ends, and again
// from the window's end when that read comes short of what the total promises (the statements share no snapshot: a
// writer may delete passages in between). Needs no server: the reads are stand-ins that record their bounds.
import { describe, expect, it } from 'vitest';
import { pageOf, type PagedRow } from '../../src/db/postgres/search.js';

/** The window's row past its end: `n` matches in the window, the lowest at `lo`, `total` in all, the page's reach. */
const past = (n: number, lo: number, total: number, reach: number | null): PagedRow[] => [{ n, lo, total, reach, id: null }];

/** A read of the matches below the window (ids `lo - 1` down to 1, each a match), recording its bounds; `gone`: ids deleted meanwhile. */
function older(gone: (id: number) => boolean = () => false) {
  const calls: { boundary: number; limit: number; offset: number; reach?: number }[] = [];
  const read = async (boundary: number, limit: number, offset: number, reach?: number) => {
    calls.push({ boundary, limit, offset, ...(reach === undefined ? {} : { reach }) });
    const ids: number[] = [];
    for (let id = boundary - 1; id >= (reach ?? 1); id--) if (!gone(id)) ids.push(id);
    return ids.slice(offset, offset + limit).map((id) => ({ id }));
  };
  return { calls, read };
}

describe('the page past the window', () => {
  it('is read from the reach alone when it holds the page', async () => {
    const o = older();
    const page = await pageOf(past(2000, 5000, 6000, 4000), { limit: 10, offset: 2500 }, o.read);
    expect(page).toEqual({ ids: Array.from({ length: 10 }, (_, i) => 4499 - i), total: 6000, rows: new Map() });
    expect(o.calls).toEqual([{ boundary: 5000, limit: 10, offset: 500, reach: 4000 }]);
  });

  it('is read again from the window\'s end when the read from the reach comes short of the total', async () => {
    // Passages 4000-4495 deleted after the window was counted: below the reach, the page is short.
    const o = older((id) => id >= 4000 && id <= 4495);
    const page = await pageOf(past(2000, 5000, 6000, 4000), { limit: 10, offset: 2500 }, o.read);
    expect(page.ids).toEqual([4499, 4498, 4497, 4496, 3999, 3998, 3997, 3996, 3995, 3994]);
    expect(o.calls.map((c) => c.reach)).toEqual([4000, undefined]);
  });

  it('is not read again at the end of the matches, nor bounded without a reach', async () => {
    const o = older();
    // The last page: 5 matches left past the window, where the total ends.
    expect((await pageOf(past(2000, 3006, 2005 + 3000, 1), { limit: 10, offset: 2000 + 3000 }, o.read)).ids).toEqual([5, 4, 3, 2, 1]);
    expect(o.calls).toHaveLength(1);
    const unbounded = older();
    await pageOf(past(2000, 5000, 6000, 0), { limit: 10, offset: 2500 }, unbounded.read);
    await pageOf(past(2000, 5000, 6000, null), { limit: 10, offset: 2500 }, unbounded.read);
    expect(unbounded.calls.map((c) => c.reach)).toEqual([undefined, undefined]);
  });

  it('is not read when the window holds the page or there is nothing past it', async () => {
    const o = older();
    const window: PagedRow[] = Array.from({ length: 10 }, (_, i) => ({ n: 2000, lo: 5000, total: 6000, reach: 4000, id: 9000 - i }));
    expect((await pageOf(window, { limit: 10, offset: 0 }, o.read)).ids).toHaveLength(10);
    expect((await pageOf(past(30, 5000, 30, 0), { limit: 10, offset: 40 }, o.read)).ids).toEqual([]);
    expect(o.calls).toEqual([]);
  });

  it('keeps the hits read with the page, by id, but those whose passage was not found', async () => {
    const hit = (id: number, meeting: string | null) => ({ n: 2000, lo: 5000, total: 6000, reach: null, id, meeting_id: meeting, title: 't', text: `passage ${id}` });
    const page = await pageOf([hit(9000, 'mtg_a'), hit(8999, null), hit(8998, 'mtg_b')], { limit: 3, offset: 0 }, older().read);
    expect(page.ids).toEqual([9000, 8999, 8998]);
    expect([...page.rows!.entries()].map(([id, r]) => [id, r.id, r.meeting_id, r.text])).toEqual([
      [9000, 9000, 'mtg_a', 'passage 9000'],
      [8998, 8998, 'mtg_b', 'passage 8998'],
    ]);
  });
});
