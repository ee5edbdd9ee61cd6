import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../bench/generate.js';
import { openDatabase, type Sqlite } from '../../src/db/open.js';
import { listMeetings, parseDateRange, type MeetingFilter } from '../../src/db/queries/meetings.js';
import { applyProposalOrThrow, proposeMemoEdit, proposeSummaryEdit } from '../../src/db/queries/proposals.js';
import { searchTranscripts, type SearchFilter, type SearchOptions } from '../../src/db/queries/search.js';
import { tempDir } from '../support/db.js';
import { drawer, vocabulary } from '../support/questions.js';

// Seeded random questions on the embedded engine, every filter drawn from the data and combined, at a size where
// the search bitmaps hold whole blocks (5,000 meetings, ~19,400 passages): each answer is checked against what the
// rows say, read the plainest way (FTS5 for the words alone, the meetings' own columns and participants for the
// filters, with LIKE), and against the other ways the engine knows (without the bitmaps, ranked by FTS5's bm25(),
// a participant fragment in most names matched on every meeting). The filters' indexes (tags, lists, bits, grams,
// the few meetings a fragment fails) are what the answers come from; the reference reads none of them.
//
// Then notes and summaries are rewritten through proposals, as an assistant's applied edits are, which leaves
// their old blocks' bits stale, and every search is asked again.

const SEARCHES = 150;
const LISTS = 150;
/** Other questions: SYNTHEO_ORACLE_SEED=N npx vitest run test/db/random-oracle.test.ts */
const SEED = Number(process.env.SYNTHEO_ORACLE_SEED ?? 20261204);

/** The meetings passing `filter`, read from their own columns and participants (LIKE is ASCII case-insensitive; the data is ASCII). */
function meetingsWhere(filter: MeetingFilter): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  const like = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  if (filter.query !== undefined) {
    parts.push("(m.title LIKE ? ESCAPE '\\' OR m.id LIKE ? ESCAPE '\\')");
    params.push(like(filter.query), like(filter.query));
  }
  if (filter.folderPath !== undefined) {
    parts.push("m.folder_id IN (SELECT id FROM folders WHERE path = ? OR substr(path, 1, length(?) + 1) = ? || '/')");
    params.push(filter.folderPath, filter.folderPath, filter.folderPath);
  }
  if (filter.seriesId !== undefined) {
    parts.push('m.series_id = ?');
    params.push(filter.seriesId);
  }
  if (filter.participant !== undefined) {
    parts.push("EXISTS (SELECT 1 FROM participants x WHERE x.meeting_id = m.id AND (x.name LIKE ? ESCAPE '\\' OR x.email LIKE ? ESCAPE '\\'))");
    params.push(like(filter.participant), like(filter.participant));
  }
  const range = parseDateRange(filter.from, filter.to);
  if (range.from !== undefined) {
    parts.push('m.started_at >= ?');
    params.push(range.from);
  }
  if (range.to !== undefined) {
    parts.push('m.started_at <= ?');
    params.push(range.to);
  }
  return { sql: parts.length ? parts.join(' AND ') : '1', params };
}

/** The passages holding every word of the query (FTS5 on the text alone) in the meetings passing the filter. */
function searchTotal(s: Sqlite, filter: SearchFilter): number {
  const { sql, params } = meetingsWhere({ ...filter, query: undefined });
  const words = `{text} : (${filter.query.split(' ').map((w) => `"${w}"`).join(' ')})`;
  return (s.prepare(`SELECT count(*) FROM search_fts f JOIN search_passages p ON p.id = f.rowid JOIN meetings m ON m.id = p.meeting_id WHERE search_fts MATCH ? AND ${sql}`).pluck().get(words, ...params) as number);
}

/** The total and the page's meetings, newest first, ties by id. */
function listPage(s: Sqlite, filter: MeetingFilter, offset: number, limit: number): string {
  const { sql, params } = meetingsWhere(filter);
  const total = s.prepare(`SELECT count(*) FROM meetings m WHERE ${sql}`).pluck().get(...params) as number;
  const ids = s.prepare(`SELECT m.id FROM meetings m WHERE ${sql} ORDER BY m.started_at DESC, m.id DESC LIMIT ? OFFSET ?`).pluck().all(...params, limit, offset) as string[];
  return JSON.stringify([total, ids]);
}

describe('random questions on SQLite, against the rows and against its other ways (bitmaps built)', () => {
  it('every search counts what the rows hold and pages alike each way, before and after edits; every list is the rows', () => {
    const tmp = tempDir();
    try {
      const file = join(tmp.dir, 'random.db');
      // Words said in 100 passages or more have said lists (at 100k meetings, from 2,000): the middling words are read from them.
      generate({ meetings: 5_000, words: 500_000, longest: 2_000, seed: 23, out: file, progress: false, saidWords: 100 });
      const words = vocabulary(file);
      for (const [kind, values] of Object.entries(words)) if (Array.isArray(values)) expect(values.length, kind).toBeGreaterThan(0);
      const db = openDatabase(file, { create: false });
      try {
        const s = db.sqlite;
        // The bitmaps hold whole blocks: what the search reads first.
        const built = s.prepare("SELECT count(*) AS terms, min(built) AS built FROM search_bits_terms WHERE built > 0 AND term LIKE 'text:%'").get() as { terms: number; built: number };
        expect(built.terms).toBeGreaterThan(50);
        expect(built.built).toBeGreaterThanOrEqual(4);
        expect(s.prepare("SELECT count(*) FROM search_bits_terms WHERE built >= 4 AND term LIKE 'said:%'").pluck().get()).toBeGreaterThan(50);

        const draw = drawer(words, SEED);
        const searches = Array.from({ length: SEARCHES }, () => draw.search());
        const wrong = (state: string) => {
          const out: string[] = [];
          let found = 0;
          for (const { filter, offset } of searches) {
            const page = { limit: 10, offset };
            const got = searchTranscripts(s, filter, page);
            const held = searchTotal(s, filter);
            if (held > 0) found++;
            const said = `${state}: ${JSON.stringify(filter)} at ${offset}`;
            if (got.pagination.total !== held || got.hits.length !== Math.max(0, Math.min(10, held - offset)))
              out.push(`${said}: ${got.pagination.total} counted (${got.hits.length} hits), ${held} held`);
            const key = (r: typeof got) => JSON.stringify([r.pagination.total, r.hits.map((h) => [h.meeting_id, h.kind, h.offset, h.snippet])]);
            const ways: SearchOptions[] = [{ bits: false }, { rank: 'fts5' }, { exceptions: false }, ...(filter.participant !== undefined ? [{ participants: 'probed' as const }, { participants: 'joined' as const }, { participants: 'listed' as const }] : [])];
            for (const way of ways) {
              const other = searchTranscripts(s, filter, page, way);
              if (key(other) !== key(got)) out.push(`${said} ${JSON.stringify(way)}: ${key(other).slice(0, 300)}, by default ${key(got).slice(0, 300)}`);
            }
          }
          // The questions find things: many have matches, some more than a window, some none.
          expect(found, state).toBeGreaterThan(SEARCHES / 3);
          return out;
        };
        expect(wrong('as generated')).toEqual([]);

        // Notes and summaries of meetings across the blocks rewritten, as applied proposals rewrite them: their old
        // passages go from blocks whose bits are built, new ones come at the end.
        const spread = (kind: string) =>
          (s.prepare('SELECT DISTINCT meeting_id, kind, ref_id FROM search_passages WHERE kind = ? ORDER BY id').all(kind) as { meeting_id: string; kind: string; ref_id: string }[]).filter(
            (_, i, all) => i % Math.ceil(all.length / 10) === 0,
          );
        const edited = [...spread('note'), ...spread('summary')];
        expect(edited.length).toBeGreaterThan(15);
        for (const [i, e] of edited.entries()) {
          const content = `${draw.search().filter.query} ${words.common[i % 5]} ${words.middling[i % words.middling.length]}\n`;
          const proposal = e.kind === 'note' ? proposeMemoEdit(s, { meetingId: e.meeting_id, content }) : proposeSummaryEdit(s, { meetingId: e.meeting_id, targetId: e.ref_id, content });
          applyProposalOrThrow(s, proposal.id, { force: false });
        }
        const stale = s.prepare('SELECT count(*) FROM search_bits_dirty').pluck().get() as number;
        expect(stale).toBeGreaterThan(0);
        expect(wrong(`after ${edited.length} edits`)).toEqual([]);

        const lists: string[] = [];
        let listed = 0;
        for (const { filter, offset } of Array.from({ length: LISTS }, () => draw.list())) {
          const page = { limit: 9, offset };
          const got = listMeetings(s, filter, page);
          if (got.meetings.length > 0) listed++;
          const key = (r: typeof got) => JSON.stringify([r.pagination.total, r.meetings.map((m) => m.id)]);
          const held = listPage(s, filter, offset, 9);
          if (key(got) !== held) lists.push(`${JSON.stringify(filter)} at ${offset}: ${key(got).slice(0, 200)}, held ${held.slice(0, 200)}`);
          const other = listMeetings(s, filter, page, { exceptions: false });
          if (key(other) !== key(got)) lists.push(`${JSON.stringify(filter)} at ${offset} {"exceptions":false}: ${key(other).slice(0, 200)}`);
        }
        expect(listed).toBeGreaterThan(LISTS / 3);
        expect(lists).toEqual([]);
      } finally {
        db.close();
      }
    } finally {
      tmp.cleanup();
    }
  }, 240_000);
});
