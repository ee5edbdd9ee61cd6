import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import type { SearchKind } from '../schema/search.js';
import { compileMeetingFilter, type MeetingFilter } from './meetings.js';
import { pagination } from './pagination.js';
import type { Page, Pagination } from './types.js';

/** A transcript passage is one speaker turn, cut after this many words. */
export const PASSAGE_MAX_WORDS = 60;

type WordRow = [idx: number, text: string, speaker: string | null];

/**
 * (Re)writes the search passages of a transcript from word `fromIdx` on. The passage that holds
 * `fromIdx` is rebuilt too, so appending a chunk extends the last turn instead of splitting it.
 * Run inside the transaction that wrote the words.
 */
export function indexTranscript(sqlite: Sqlite, transcriptId: string, meetingId: string, fromIdx = 0): void {
  const start =
    fromIdx === 0
      ? 0
      : (stmt<{ start: number | null }>(sqlite, 'SELECT max(word_offset) AS start FROM search_passages WHERE ref_id = ? AND word_offset <= ?').get(transcriptId, fromIdx)!.start ??
        0);
  stmt(sqlite, 'DELETE FROM search_passages WHERE ref_id = ? AND word_offset >= ?').run(transcriptId, start);
  const words = stmt(sqlite, 'SELECT idx, text, speaker FROM transcript_words WHERE transcript_id = ? AND idx >= ? ORDER BY idx').raw().all(transcriptId, start) as WordRow[];
  const insert = stmt(sqlite, "INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text) VALUES (?, 'transcript', ?, ?, ?, ?)");
  let first = 0;
  for (let i = 1; i <= words.length; i++) {
    if (i === words.length || words[i]![2] !== words[first]![2] || i - first >= PASSAGE_MAX_WORDS) {
      const passage = words.slice(first, i);
      insert.run(meetingId, transcriptId, passage[0]![0], passage[0]![2], passage.map((w) => w[1]).join(' '));
      first = i;
    }
  }
}

export interface SearchHit {
  meeting_id: string;
  title: string;
  started_at: string;
  /** Where the passage comes from. */
  kind: SearchKind;
  /** The summary's id for a summary hit, else null. */
  summary_id: string | null;
  speaker: string | null;
  /** For a transcript hit: the word offset to pass to get_meeting_transcript to read the passage; else null. */
  offset: number | null;
  /** The matching passage, matched words in **bold**, cut with … */
  snippet: string;
}

export interface SearchFilter extends Omit<MeetingFilter, 'query'> {
  query: string;
}

/**
 * Words of a query, for FTS5: every run of letters or digits, each quoted, so quotes, `*`, `-`,
 * `NEAR`, `AND`/`OR` are plain text and never FTS syntax.
 */
export function queryTerms(query: string): string[] {
  return query.match(/[\p{L}\p{N}\p{M}]+/gu) ?? [];
}

const quote = (term: string) => `"${term.replace(/"/g, '""')}"`;

interface HitRow {
  id: number;
  meeting_id: string;
  title: string;
  started_at: string;
  kind: SearchKind;
  ref_id: string;
  word_offset: number | null;
  speaker: string | null;
}

/**
 * search_transcripts: passages containing every word of the query, ranked exact phrase first, then by
 * BM25, then newest first; filtered by the meeting filters of list_meetings.
 */
export function searchTranscripts(sqlite: Sqlite, filter: SearchFilter, page: Page): { hits: SearchHit[]; pagination: Pagination } {
  const terms = queryTerms(filter.query);
  // Nothing searchable (only punctuation): no passage can match.
  if (terms.length === 0) return { hits: [], pagination: pagination(page, 0, 0) };
  const all = terms.map(quote).join(' ');
  const phrase = quote(terms.join(' '));
  const { where, params } = compileMeetingFilter(sqlite, { ...filter, query: undefined });
  const meetingClause = where ? `AND ${where.replace(/^WHERE /, '')}` : '';
  const rows = stmt<HitRow>(
    sqlite,
    `SELECT p.id, p.meeting_id, m.title, m.started_at, p.kind, p.ref_id, p.word_offset, p.speaker
     FROM search_fts f
     JOIN search_passages p ON p.id = f.rowid
     JOIN meetings m ON m.id = p.meeting_id
     WHERE search_fts MATCH ? ${meetingClause}
     ORDER BY (p.id IN (SELECT rowid FROM search_fts WHERE search_fts MATCH ?)) DESC, f.rank, m.started_at DESC, p.id
     LIMIT ? OFFSET ?`,
  ).all(all, ...params, phrase, page.limit, page.offset);
  const total = stmt<{ n: number }>(
    sqlite,
    `SELECT count(*) AS n FROM search_fts f JOIN search_passages p ON p.id = f.rowid JOIN meetings m ON m.id = p.meeting_id WHERE search_fts MATCH ? ${meetingClause}`,
  ).get(all, ...params)!.n;
  const snippets = snippetsFor(sqlite, all, rows.map((r) => r.id));
  const hits = rows.map(
    (r): SearchHit => ({
      meeting_id: r.meeting_id,
      title: r.title,
      started_at: r.started_at,
      kind: r.kind,
      summary_id: r.kind === 'summary' ? r.ref_id : null,
      speaker: r.speaker,
      offset: r.word_offset,
      snippet: snippets.get(r.id) ?? '',
    }),
  );
  return { hits, pagination: pagination(page, hits.length, total) };
}

/** Snippets for the page only: snippet() costs a passage read each, so never for every match. */
function snippetsFor(sqlite: Sqlite, match: string, ids: number[]): Map<number, string> {
  if (ids.length === 0) return new Map();
  const rows = sqlite
    .prepare(`SELECT rowid AS id, snippet(search_fts, 0, '**', '**', '…', 24) AS snippet FROM search_fts WHERE search_fts MATCH ? AND rowid IN (${ids.map(() => '?').join(',')})`)
    .all(match, ...ids) as { id: number; snippet: string }[];
  return new Map(rows.map((r) => [r.id, r.snippet.replace(/\s*\n+\s*/g, ' ')]));
}
