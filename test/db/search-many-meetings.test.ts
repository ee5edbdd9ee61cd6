// search_transcripts with a participant fragment across words held by many meetings (1,000 and more): their passages
// are set in the bitmaps when every word's are built, or the word's matches are walked once and kept when theirs (the
// bitmaps refusing: too many old passages changed since their round); before, every match was joined to its meeting.
// Totals and pages must be those of the search without the bitmaps and of the rows themselves.
import { describe, expect, it } from 'vitest';
import type { Sqlite } from '../../src/db/open.js';
import { setIndexesAside } from '../../src/db/queries/bulk-index.js';
import { searchTranscripts, type SearchFilter } from '../../src/db/queries/search.js';
import { BLOCK, buildSearchBits, matchBits } from '../../src/db/queries/search-bits.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant } from '../support/factories.js';

const db = testDbs();
const MEETINGS = 1500;
const QUERIES = ['the', 'plan the'];
const FILTERS: Omit<SearchFilter, 'query'>[] = [
  // Across words: 1,350 meetings hold it (Eve Ng, and Eve Ngata: a fragment of a longer name), 150 do not (Bo Chen).
  { participant: 'Eve Ng' },
  { participant: 've Ng' },
  { participant: 'Eve Ng', from: '2026-01-20', to: '2026-02-10' },
  { participant: 'Eve Ng', folderPath: 'Sales' },
];

/** 1,500 meetings over two months, three passages each on average (over 2 blocks of ids), written as the bulk writers do. */
function seed(s: Sqlite): void {
  let x = 7;
  const next = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  s.transaction(() => {
    const meetings: string[] = [];
    for (let i = 0; i < MEETINGS; i++) {
      const m = makeMeeting(s, { folderPath: i % 3 === 0 ? 'Sales' : 'Ops', startedAt: new Date(Date.UTC(2026, 0, 1) + i * 3_456_000).toISOString() });
      makeParticipant(s, m, { name: i % 5 === 4 ? (i % 2 ? 'Eve Ngata' : 'Bo Chen') : 'Eve Ng', position: 0 });
      meetings.push(m);
    }
    const aside = setIndexesAside(s);
    const insert = s.prepare("INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text, tags) SELECT id, 'note', id, NULL, NULL, ?, search_tags FROM meetings WHERE id = ?");
    for (let i = 0; i < 2 * BLOCK + 500; i++) {
      const words = [next() < 0.9 ? 'the' : 'a', next() < 0.3 ? 'plan' : 'budget', next() < 0.5 ? 'the' : 'so', `w${Math.floor(next() * 40)}`];
      insert.run(words.join(' '), meetings[Math.floor(next() * meetings.length)]!);
    }
    aside.restore();
  })();
}

/** What the rows say: passages holding every word (FTS5 without filters) of the meetings passing the filter (listed by LIKE and dates). */
function reference(s: Sqlite, filter: SearchFilter): number {
  const range = filter.from ? ` AND m.started_at >= '${filter.from}' AND m.started_at <= '${filter.to}T23:59:59.999Z'` : '';
  const folder = filter.folderPath ? ` AND m.folder_id = (SELECT id FROM folders WHERE path = '${filter.folderPath}')` : '';
  return (
    s
      .prepare(
        `SELECT count(*) AS n FROM search_fts f JOIN search_passages p ON p.id = f.rowid JOIN meetings m ON m.id = p.meeting_id
         WHERE search_fts MATCH ? AND EXISTS (SELECT 1 FROM participants x WHERE x.meeting_id = m.id AND x.name LIKE ?)${range}${folder}`,
      )
      .get(`{text} : (${filter.query.split(' ').map((w) => `"${w}"`).join(' ')})`, `%${filter.participant}%`) as { n: number }
  ).n;
}

function compare(s: Sqlite): string[] {
  const wrong: string[] = [];
  for (const query of QUERIES)
    for (const f of FILTERS)
      for (const offset of [0, 1990]) {
        const filter = { ...f, query };
        const page = { offset, limit: 20 };
        const [bits, rows] = [searchTranscripts(s, filter, page), searchTranscripts(s, filter, page, { bits: false })];
        const held = reference(s, filter);
        const said = (r: typeof bits) => JSON.stringify([r.pagination.total, r.hits.map((h) => [h.meeting_id, h.snippet])]);
        if (bits.pagination.total !== held) wrong.push(`${JSON.stringify(filter)}: ${bits.pagination.total} counted, ${held} held`);
        if (said(bits) !== said(rows)) wrong.push(`${JSON.stringify(filter)} at ${offset}: the page differs from the search without the bitmaps`);
      }
  return wrong;
}

describe('search_transcripts with a fragment across words held by many meetings', () => {
  it('answers as the rows do from the bitmaps, and from the word walked once when the bitmaps refuse', () => {
    const s = db();
    seed(s);
    buildSearchBits(s);
    // 1,350 meetings hold the fragment: more than the 1,000 the path took before.
    expect(s.prepare("SELECT count(DISTINCT meeting_id) AS n FROM participants WHERE name LIKE '%Eve Ng%'").get()).toEqual({ n: 1350 });
    expect(matchBits(s, ['the'], [], [])?.below).toBe(3 * BLOCK);
    expect(compare(s)).toEqual([]);
    // More old passages rewritten (dirty) than the bitmaps leave aside: they refuse.
    s.prepare("UPDATE search_passages SET text = 'the plan the w1' WHERE id % 3 > 0 AND id < 2 * ?").run(BLOCK);
    expect(matchBits(s, ['the'], [], [])).toBeUndefined();
    expect(compare(s)).toEqual([]);
  }, 120_000);
});
