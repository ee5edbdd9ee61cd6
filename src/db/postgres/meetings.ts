import { NotFoundError, type WrongKind } from '../../errors.js';
import { ID_PREFIXES, newId, type IdKind } from '../ids.js';
import { nowIso } from '../time.js';
import { ACTIVE_STATUSES_SQL } from '../schema/enums.js';
import { matchFragment } from '../statements.js';
import { normalizeFolderPath, parentPath, subtreeBounds, type FolderFilter, type FolderRef } from '../queries/folders.js';
import type { ExpectedKind } from '../queries/not-found.js';
import { pagination } from '../queries/pagination.js';
import { IMPORT_COLUMNS, toRecordingImport, type ImportRow } from '../queries/imports.js';
import { toSegments, type WordTuple } from '../queries/export.js';
import { isAscii, unicodeForms } from '../queries/unicode.js';
import { peopleGramToken } from '../queries/list-index.js';
import { parseDateRange, type MeetingFilter } from '../queries/meetings.js';
import { MAX_GRAM_STRAYS, MAX_GRAM_TRIPLES, MAX_LACKING_READ, MAX_PARTICIPANT_EXCEPTIONS, MAX_PARTICIPANT_HANDLES, PARTICIPANT_SEPARATORS, RECENT_MEETINGS_HOLDING } from '../queries/participant-words.js';
import {
  EXPORT_FORMAT,
  type ActionItem,
  type Folder,
  type MeetingDetail,
  type MeetingExport,
  type MeetingListItem,
  type MeetingRecord,
  type Page,
  type Pagination,
  type Participant,
  type RecordingImport,
  type SeriesRef,
  type Summary,
  type TranscriptInfo,
} from '../queries/types.js';
import { SETTLED_BLOCKS } from './bitmaps.js';
import { setBits } from './bit-positions.js';
import { dateTerm, startedWithin, type DateTerm } from './calendar.js';
import { genericPoolOf, one, rows, rowsGeneric, rowsGenericOr, rowsPlanned, transaction, withMergePlans, type Queryable } from './sql.js';
import type { Pool, QueryResultRow } from 'pg';

// Reads of meetings, folders and series on PostgreSQL: the same answers as src/db/queries (SQLite).
// Text order is byte order (COLLATE "C"), as SQLite's; fragments match with ILIKE through pg_trgm.

export const MEETING_ITEM_COLUMNS = `m.id, m.title, m.started_at, m.ended_at,
  (SELECT f.path FROM folders f WHERE f.id = m.folder_id) AS folder_path,
  m.series_id,
  coalesce((SELECT t.word_count FROM transcripts t WHERE t.meeting_id = m.id), 0) AS transcript_word_count,
  (SELECT count(*)::int FROM summaries s WHERE s.meeting_id = m.id) AS summary_count,
  (SELECT CASE WHEN j.status IN ${ACTIVE_STATUSES_SQL} AND j.lease_expires_at <= syntheo_at(NULL, 0) THEN 'failed' ELSE j.status END
     FROM recording_imports j WHERE j.meeting_id = m.id ORDER BY j.created_at DESC LIMIT 1) AS processing_status`;

export const NEWEST_FIRST = 'ORDER BY m.started_at COLLATE "C" DESC, m.id COLLATE "C" DESC';

/**
 * The page's IDs first (an index walk, offset rows skipped without computing anything), then the
 * item columns for those rows only: PostgreSQL would otherwise evaluate every subquery of the
 * select list for each skipped row of a deep offset.
 */
const pageOfMeetings = (ids: string) => `SELECT ${MEETING_ITEM_COLUMNS} FROM (${ids}) page JOIN meetings m ON m.id = page.id ${NEWEST_FIRST}`;

/**
 * The same, for a page made of two branches: LATERAL ... OFFSET 0 is one primary-key lookup per page
 * row, whatever the planner guesses of the page's size (it guesses a LIMIT computed from the total at
 * 10% of the table, and chose a merge join over all meetings).
 */
const pageOfMeetingsByKey = (ids: string) =>
  `SELECT ${MEETING_ITEM_COLUMNS} FROM (${ids}) page CROSS JOIN LATERAL (SELECT * FROM meetings x WHERE x.id = page.id OFFSET 0) m ${NEWEST_FIRST}`;

/** `%`, `_` and `\` literal for ILIKE ... ESCAPE '\'. */
export const ilike = (fragment: string): string => `%${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * A name's or title's fragment (an ILIKE pattern) in the words of participant_words and title_words: the words were
 * lower-cased when written (lower() of the name or title, in the database's collation), so the pattern is lower-cased the
 * same way and compared as it is (LIKE, the words' collation "C"), no word lower-cased again (`e` over every word: 0.7-2.7
 * ms -> 0.5-0.9; `ko` 1.2-1.4 -> 0.7-0.8). Not lower-cased in "C", which maps ASCII letters only: `JÖRG` was then not in
 * `jörg`, and a name written with a capital letter beyond ASCII (`Élodie`) was found only in its decomposed form.
 */
const wordLike = (column: string, pattern: string): string => `${column} LIKE (lower(${pattern}) COLLATE "C") ESCAPE '\\'`;

/** wordLike for a plan made once: its pattern lower-cased and escaped once (an InitPlan); in such a plan, lower() of a parameter ran for each word. */
const wordLikeOnce = (column: string, pattern: string): string => `${column} LIKE (SELECT like_escape(lower(${pattern}), '\\') COLLATE "C")`;

/**
 * `m.id ILIKE pattern` as its trigram index holds it (migration 0026): lower(m.id) LIKE lower(pattern), what ILIKE does
 * in a UTF-8 database (both sides lower-cased, then matched).
 */
const idLike = (pattern: string): string => `lower(m.id) LIKE lower(${pattern}) ESCAPE '\\'`;

/** A title fragment on meeting row `m`: its title in either Unicode form (ILIKE patterns `forms`), or its id (`id`). */
const titleLike = (forms: string[], id: string, p: (value: unknown) => string): string =>
  `${forms.map((f) => `m.title ILIKE ${p(f)} ESCAPE '\\'`).join(' OR ')} OR ${idLike(p(id))}`;

// ---------------------------------------------------------------------------------------------
// Not found, with the same structured hints as src/db/queries/not-found.ts (the surfaces word them)

const KIND_BY_PREFIX = new Map<string, IdKind>(Object.entries(ID_PREFIXES).map(([kind, prefix]) => [prefix, kind as IdKind]));
const ID_SHAPE = /^([a-z]{3})_[0-9a-z_-]+$/i;

export async function notFound(q: Queryable, expected: Exclude<ExpectedKind, 'summary'>, id: string): Promise<NotFoundError> {
  const hint = await wrongKindHint(q, expected, id);
  return new NotFoundError({ what: expected, id, ...(hint && { hint }) });
}

type Row = Record<string, string | null>;
const find = (q: Queryable, sql: string, id: string) => one<Row>(q, sql, [id]);

export async function wrongKindHint(q: Queryable, expected: ExpectedKind, id: string): Promise<WrongKind | undefined> {
  const m = ID_SHAPE.exec(id);
  const kind = m ? (KIND_BY_PREFIX.get(m[1]!.toLowerCase()) ?? 'other') : 'text';
  if (kind === 'text' || kind === 'other') return { is: 'text' };
  if (kind === expected) return undefined;
  switch (kind) {
    case 'meeting': {
      const r = await find(q, 'SELECT series_id, (SELECT j.id FROM recording_imports j WHERE j.meeting_id = meetings.id ORDER BY j.created_at DESC LIMIT 1) AS job_id FROM meetings WHERE id = $1', id);
      return r ? { is: 'meeting', seriesId: r.series_id ?? null, jobId: r.job_id ?? null } : undefined;
    }
    case 'series':
      return (await find(q, 'SELECT id FROM series WHERE id = $1', id)) ? { is: 'series' } : undefined;
    case 'folder': {
      const f = await find(q, 'SELECT path FROM folders WHERE id = $1', id);
      return f ? { is: 'folder', path: f.path ?? '' } : undefined;
    }
    case 'job': {
      const j = await find(q, 'SELECT meeting_id FROM recording_imports WHERE id = $1', id);
      return j ? { is: 'job', meetingId: j.meeting_id ?? null } : undefined;
    }
    case 'summary':
    case 'proposal':
    case 'actionItem':
    case 'participant':
    case 'transcript': {
      const table = { summary: 'summaries', proposal: 'proposals', actionItem: 'action_items', participant: 'participants', transcript: 'transcripts' }[kind];
      const r = await find(q, `SELECT meeting_id FROM ${table} WHERE id = $1`, id);
      return r?.meeting_id ? { is: kind === 'actionItem' ? 'action_item' : kind, meetingId: r.meeting_id } : undefined;
    }
    default:
      return undefined;
  }
}

export const meetingNotFound = (q: Queryable, id: string) => notFound(q, 'meeting', id);

export async function assertMeetingExists(q: Queryable, id: string): Promise<void> {
  if ((await one(q, 'SELECT 1 FROM meetings WHERE id = $1', [id])) === undefined) throw await meetingNotFound(q, id);
}

// ---------------------------------------------------------------------------------------------
// Folders

/**
 * Exact path first (either Unicode form), else a case-insensitive match when it is unambiguous. `meetings`: with the
 * meetings its tag holds (it and the folders under it: meeting_tag_counts), read with an exact path, for a search's
 * estimates (the statistics guess ~800 passages for any tag outside their most common: a leaf folder's 7,597 at 100k
 * meetings).
 */
export async function getFolderByPathOrThrow(q: Queryable, path: string, options: { meetings?: boolean } = {}): Promise<FolderRef & { meetings?: number }> {
  let normalized: string;
  try {
    normalized = normalizeFolderPath(path);
  } catch {
    throw await folderNotFound(q, path);
  }
  const exact = await findExactFolder(q, normalized, options.meetings === true);
  if (exact) return exact;
  const [nfc, nfd] = unicodeForms(normalized);
  const loose = await rows<FolderRef>(q, 'SELECT id, path FROM folders WHERE lower(path) = lower($1) OR lower(path) = lower($2) LIMIT 2', [nfc, nfd]);
  if (loose.length === 1) return loose[0]!;
  throw await folderNotFound(q, path);
}

async function folderNotFound(q: Queryable, path: string): Promise<NotFoundError> {
  // A folder ID where its path is expected: name the path to pass.
  const byId = /^fld_[0-9a-z]+$/i.test(path.trim()) ? await one<{ path: string }>(q, 'SELECT path FROM folders WHERE id = $1', [path.trim()]) : undefined;
  return new NotFoundError({ what: 'folder', id: path, ...(byId && { hint: { is: 'folder' as const, path: byId.path } }) });
}

async function findExactFolder(q: Queryable, path: string, meetings = false): Promise<(FolderRef & { meetings?: number }) | undefined> {
  const [nfc, nfd] = unicodeForms(path);
  if (!meetings) return one<FolderRef>(q, 'SELECT id, path FROM folders WHERE path = $1 OR path = $2 ORDER BY path = $1 DESC LIMIT 1', [nfc, nfd]);
  const found = await one<FolderRef & { meetings: string | number | null }>(
    q,
    `SELECT f.id, f.path, (SELECT sum(c.n) FROM meeting_tag_counts c WHERE c.tag = 'f' || f.id) AS meetings
     FROM folders f WHERE f.path = $1 OR f.path = $2 ORDER BY f.path = $1 DESC LIMIT 1`,
    [nfc, nfd],
  );
  return found && { id: found.id, path: found.path, ...(found.meetings !== null && { meetings: Number(found.meetings) }) };
}

/** Creates the folder and its missing parents (safe against concurrent creators); returns the deepest one. */
export async function ensureFolderPath(pool: Pool, path: string): Promise<FolderRef> {
  const normalized = normalizeFolderPath(path);
  return transaction(pool, (c) => ensureFolderPathIn(c, normalized));
}

/** The same, inside the caller's transaction. */
export async function ensureFolderPathIn(c: Queryable, path: string): Promise<FolderRef> {
  let parent: FolderRef | undefined;
  for (const name of normalizeFolderPath(path).split('/')) {
    const current = parent ? `${parent.path}/${name}` : name;
    let ref = await findExactFolder(c, current);
    if (!ref) {
      await c.query('INSERT INTO folders (id, path, name, parent_id, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (path) DO NOTHING', [newId('folder'), current, name, parent?.id ?? null, nowIso()]);
      ref = (await one<FolderRef>(c, 'SELECT id, path FROM folders WHERE path = $1', [current]))!;
    }
    parent = ref;
  }
  return parent!;
}

// Tree order: a folder, then its children ("/" sorts before any character), case-insensitively.
const TREE_ORDER = `ORDER BY lower(replace(f.path, '/', chr(1))) COLLATE "C", f.path COLLATE "C"`;

export async function listFolders(q: Queryable, filter: FolderFilter, page: Page): Promise<{ folders: Folder[]; pagination: Pagination }> {
  const fragment = filter.query !== undefined && filter.query !== '' ? matchFragment(filter.query, 'query') : null;
  let where = '';
  let params: string[] = [];
  if (fragment !== null) {
    const forms = [...new Set(unicodeForms(fragment))];
    where = `WHERE ${forms.map((_, i) => `f.path ILIKE $${i + 1} ESCAPE '\\'`).join(' OR ')}`;
    params = forms.map(ilike);
  }
  const found = await rows<Omit<Folder, 'parent_path'>>(
    q,
    `SELECT f.id, f.path, f.name, f.meeting_count FROM folders f ${where} ${TREE_ORDER} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  const total = (await one<{ n: number }>(q, `SELECT count(*)::int AS n FROM folders f ${where}`, params))!.n;
  const folders = found.map((r) => ({ ...r, parent_path: parentPath(r.path) }));
  return { folders, pagination: pagination(page, folders.length, total) };
}

// ---------------------------------------------------------------------------------------------
// Meetings

interface Compiled {
  where: string;
  params: unknown[];
  /** The conditions are the folder subtree's alone: `folders` rows of the subtree (their meeting_count adds up to the total). */
  folderOnly?: string;
  /** The participant fragment's ILIKE patterns, when it is the only filter: its meetings are counted from the participants. */
  participantOnly?: string[];
}

/**
 * Conditions over `meetings m` for the filters, ANDed; unknown series or folder -> NotFoundError. `$` numbering starts
 * after `offset` parameters. `probed`: the participant fragment is checked on each meeting passed (a list's walk, which
 * stops at its page or is narrowed by the other filters), not joined from every participant it matches (a search's
 * matches, each joined to its meeting).
 */
export async function compileMeetingFilter(q: Queryable, filter: MeetingFilter, offset = 0, probed = false): Promise<Compiled> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const p = (value: unknown) => `$${offset + params.push(value)}`;
  if (filter.query !== undefined && filter.query !== '') {
    const fragment = matchFragment(filter.query, 'query');
    const forms = [...new Set(unicodeForms(fragment))];
    clauses.push(`(${titleLike(forms.map(ilike), ilike(fragment), p)})`);
  }
  if (filter.seriesId !== undefined) {
    await getSeriesRefOrThrow(q, filter.seriesId);
    clauses.push(`m.series_id = ${p(filter.seriesId)}`);
  }
  let subtree: string | undefined;
  if (filter.folderPath !== undefined) {
    const folder = await getFolderByPathOrThrow(q, filter.folderPath);
    const [exact, low, high] = subtreeBounds(folder.path);
    subtree = `path = ${p(exact)} OR (path COLLATE "C" > ${p(low)} AND path COLLATE "C" < ${p(high)})`;
    clauses.push(`m.folder_id IN (SELECT id FROM folders WHERE ${subtree})`);
  }
  const range = filter.from === undefined && filter.to === undefined ? {} : parseDateRange(filter.from, filter.to);
  clauses.push(...startedWithin(range, p, 'm.started_at COLLATE "C"'));
  let patterns: string[] | undefined;
  if (filter.participant !== undefined && filter.participant !== '') {
    const fragment = matchFragment(filter.participant, 'participant');
    const forms = [...new Set(unicodeForms(fragment))];
    patterns = forms.map(ilike);
    if (probed || filter.seriesId !== undefined) clauses.push(probedFor(patterns, p));
    else clauses.push(participantsJoined(forms.map((f) => `h.handle ILIKE ${p(ilike(f))} ESCAPE '\\'`).join(' OR ')));
  }
  return {
    where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '',
    params,
    ...(subtree !== undefined && clauses.length === 1 && { folderOnly: subtree }),
    ...(patterns !== undefined && clauses.length === 1 && { participantOnly: patterns }),
  };
}

// The participant filter matches its fragment against participant_handles, each distinct name and e-mail
// once (2,000 people in 400k participant rows at 100k meetings: ILIKE on every participant row cost
// 50-60 ms of rechecks before anything was counted), then reads the participants carrying a matched
// handle from the (name, meeting_id) and (email, meeting_id) indexes alone (migration 0005).

/**
 * The meetings of the matched participants, as a semi-join. Only a fragment in many names or e-mails comes here (fewer
 * are tags: compileTags), so the planner is right to expect many. Wrapped in `IS TRUE` (kept from being made a join:
 * when common names came here, the planner had guessed 200 meetings for 43k and looked each one up), the IN was a
 * subplan hashed only while its rows fit in hash_mem: `@` (every e-mail, 400k participants at 100k meetings) was
 * scanned again for each meeting, and `@` with a title fragment or a folder ran for minutes; as a semi-join, `@` or `a`
 * alone or with another filter takes 0.9-2.9 s (through the Store).
 */
const participantsJoined = (handles: string) => `m.id IN (
    SELECT pa.meeting_id FROM participant_handles h JOIN participants pa ON pa.name = h.handle WHERE ${handles}
    UNION ALL SELECT pa.meeting_id FROM participant_handles h JOIN participants pa ON pa.email = h.handle WHERE ${handles})`;

/**
 * With a series (a few hundred meetings at most), or in a list's walk, each meeting's participants are checked instead
 * (`matched`: over `pa`): building the hash of a common name's 43k meetings cost more than probing 100 meetings, and
 * `e` (in 3,118 of 4,000 names at 100k meetings) joined 624k participants for a page of 20 (1 s). A scalar subplan, so
 * that it stays a probe of the meeting's few rows and is not made a join.
 */
const participantsProbed = (matched: string, meetingId = 'm.id') => `(SELECT true FROM participants pa WHERE pa.meeting_id = ${meetingId} AND (${matched}) LIMIT 1) IS TRUE`;

/** One of the columns matches one of the ILIKE patterns (SQL expressions: their parameters). */
const ilikeAny = (columns: string[], patterns: string[]): string => columns.flatMap((c) => patterns.map((v) => `${c} ILIKE ${v} ESCAPE '\\'`)).join(' OR ');

/** `participantsProbed` for ILIKE patterns, given as parameters by `p`. */
export const probedFor = (patterns: string[], p: (value: unknown) => string, meetingId?: string): string =>
  participantsProbed(ilikeAny(['pa.name', 'pa.email'], patterns.map(p)), meetingId);

/**
 * The count of meetings matching a compiled filter. Counting 100k rows costs PostgreSQL tens of ms, so
 * the triggers' counts answer where they can: a folder subtree alone (folders.meeting_count), or no
 * filter (meeting_tally, migration 0003).
 */
function totalSql({ where, folderOnly, participantOnly }: Compiled, param: (value: unknown) => string): string {
  if (folderOnly !== undefined) return `(SELECT coalesce(sum(meeting_count), 0)::int FROM folders WHERE ${folderOnly})`;
  // The participants carrying a matched handle, their meetings each once: a common name's 7,381 meetings of 100k in
  // 4 ms, against 30 ms probing every meeting into their hash. The handles from their trigram index
  // (syntheo_handles_like): ILIKE reads all 4,000 at 100k meetings, 2.3 ms against 0.5 (not in the conditions:
  // there, a search's plan lost its parallel workers, 0.15 -> 0.21 s).
  if (participantOnly !== undefined) {
    const handles = `(SELECT syntheo_handles_like(${param(participantOnly)}::text[]))`;
    return `(SELECT count(*)::int FROM (SELECT meeting_id FROM participants WHERE name IN ${handles} UNION SELECT meeting_id FROM participants WHERE email IN ${handles}) x)`;
  }
  if (where === '') return `${MEETINGS}::int`;
  return `(SELECT count(*)::int FROM meetings m ${where})`;
}

/** Whether a list's filters are all groups of tags kept as bits (meeting_tags' and the ASCII title grams: bitsTotal). */
const countedByBits = (t: TagFilter | undefined): t is TagFilter => bittedWithin(t) && t.range.from === undefined && t.range.to === undefined;

/** The same, but for dates, which bitsTotal counts with their calendar cover's bits (dateTerm). */
const bittedWithin = (t: TagFilter | undefined): t is TagFilter =>
  t !== undefined && !t.none && !t.title && !t.probe && !t.except && t.groups.length > 0 && t.groups.every((g) => g.every(bitted(t.made)));

/** Whether a tag is counted from bits: kept as bits (hasBits), or made from its few rows (among `made`: TagFilter.made). */
const bitted =
  (made: readonly string[] | undefined) =>
  (tag: string): boolean =>
    hasBits(tag) || (made?.includes(tag) ?? false);

/**
 * Whether a tag's meetings are kept as bits: every tag of meeting_tags (migration 0019), the ASCII title grams (0022),
 * the title words of ASCII letters (0030) and the pairs of such a word and the next (0033), as syntheo_has_tag_bits says.
 */
const hasBits = (tag: string): boolean =>
  !tag.startsWith('g') || /^g(?:[0-7][0-9a-f]){1,2}$/.test(tag) || /^gw[a-z]+$/.test(tag) || PAIR_BITS.test(tag);

/** The separators of words (PARTICIPANT_SEPARATORS) as a regular expression's class. */
const SEPARATOR_CLASS = [...PARTICIPANT_SEPARATORS].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** The title pairs (migration 0033) whose first word is of ASCII letters. */
const PAIR_BITS = new RegExp(`^g[vp][a-z]+[${SEPARATOR_CLASS}]`);

/** The meetings there are (meeting_tally's rows summed, migration 0003). */
const MEETINGS = '(SELECT coalesce(sum(meetings), 0) FROM meeting_tally)';

/** Each (tag, block) of meeting_tag_bits whose tag `holds` (a condition on `b.tag`) as one row: `tag`, `block`, its deltas XORed as `bits`. */
export const tagBlocks = (holds: string): string => `(SELECT b.tag, b.block, bit_xor(b.bits) AS bits FROM meeting_tag_bits b WHERE ${holds} GROUP BY b.tag, b.block)`;

/** The meetings holding any of the tags (an array parameter) as bits: a row a block, `block` and `bits`. */
const tagsOred = (tags: string): string => `(SELECT x.block, bit_or(x.bits) AS bits FROM ${tagBlocks(`b.tag = ANY(${tags}::text[])`)} x GROUP BY x.block)`;

/**
 * tagBlocks of `tags`, those not kept as bits (TagFilter.made: few meetings each) made from their rows (meeting_grams)
 * as the triggers make the others': each (tag, block) a row of `tag`, `block`, `bits`. Each row's number looked up by
 * key: joined, a plan made once hashed all 100,000 numbers (35 ms) for the two rows of `mark`'s id words. `param`:
 * `tags` as an array parameter already.
 */
function blocksOf(tags: readonly string[], p: (value: unknown) => string, param = p(tags)): string {
  const kept = tagBlocks(`b.tag = ANY(${param}::text[])`);
  const made = tags.filter((tag) => !hasBits(tag));
  if (made.length === 0) return kept;
  return `(SELECT k.tag, k.block, k.bits FROM ${kept} k
           UNION ALL
           SELECT x.tag, x.n >> 12, bit_or(B'1'::bit(4096) >> (x.n & 4095))
           FROM (SELECT g.tag, (SELECT n.n FROM meeting_numbers n WHERE n.meeting_id = g.meeting_id) AS n FROM meeting_grams g WHERE g.tag = ANY(${p(made)}::text[])) x
           GROUP BY x.tag, x.n >> 12)`;
}

/** tagsOred of `tags` (values; `param`, as an array parameter already), with blocksOf's bits. */
const oredOf = (tags: readonly string[], p: (value: unknown) => string, param?: string): string =>
  `(SELECT x.block, bit_or(x.bits) AS bits FROM ${blocksOf(tags, p, param)} x GROUP BY x.block)`;

/**
 * The blocks of bits of the meetings a participant fragment's names and e-mails hold: their tags' ORed (`names`, made
 * an array parameter only then), or, when the fragment is a gram itself (1-3 ASCII characters), that gram's, which
 * holds the same meetings: one tag's rows read instead of every name's (`10`, 278 names: 51 -> ~3 ms).
 */
const namesBits = (names: () => string, gram: string | undefined, p: (value: unknown) => string): string =>
  gram === undefined ? tagsOred(names()) : tagBlocks(`b.tag = ${p(gram)}`);

/**
 * The total of a list whose filters are all groups of meeting_tags' tags (participant words or names, a folder, a
 * series; no title or participant fragment checked otherwise), from their bits (migration 0019): each tag's
 * block XORed from its deltas, a group's tags ORed, the groups ANDed, counted. `om` (two words in 56,460 of 100k
 * meetings) 23 -> ~0.3 ms; a participant word and a folder, merged and counted from their key ranges, 4.8 -> ~0.5.
 * Dates only given their calendar cover (`dates`). Undefined when another filter takes part (the caller counts rows).
 */
function bitsTotal(t: TagFilter | undefined, param: (value: unknown) => string, dates?: DateTerm): string | undefined {
  if (dates === undefined) return countedByBits(t) ? `(SELECT coalesce(sum(bit_count(a.bits)), 0)::int FROM ${groupsAnded(t, param)} a)` : undefined;
  if (!bittedWithin(t)) return undefined;
  // With dates: their calendar cover's tags one more group, less the meetings of its first and last days outside the
  // range that are in every group (a day's few meetings, each looked up in the groups' keys: as a value, as EXISTS the
  // plan hashed the groups' rows, `ing`'s 46,524, ~20 ms at 100k meetings).
  const covered = { ...t, groups: [...t.groups, dates.tokens] };
  const inGroups = () =>
    t.groups
      .map((g) => `(SELECT 1 FROM ${tagTable(g[0]!)} e WHERE e.tag = ANY(${param(g)}::text[]) AND e.started_at = c.started_at AND e.meeting_id = c.meeting_id LIMIT 1) IS NOT NULL`)
      .join(' AND ');
  return `((SELECT coalesce(sum(bit_count(a.bits)), 0)::int FROM ${groupsAnded(covered, param)} a)${outsideCover(dates, param, inGroups)})`;
}

/**
 * What a count over a date range's calendar cover (dateTerm) takes away: ` - ` the meetings of its first and last days
 * (and those without a date) outside the range that pass `kept` (a condition on `c.started_at` and `c.meeting_id`,
 * made only then: its parameters would otherwise be left unused, which PostgreSQL refuses); '' when none is outside.
 */
const outsideCover = (dates: DateTerm, param: (value: unknown) => string, kept: () => string): string =>
  dates.outside
    ? ` - (SELECT count(*)::int FROM (SELECT DISTINCT t.started_at, t.meeting_id FROM meeting_tags t WHERE t.tag = ANY(${param(dates.outside.edges)}::text[])
                                     AND NOT (${dates.outside.range(param).join(' AND ')})) c
           WHERE ${kept()})`
    : '';

/** The meetings of every group of `t` (countedByBits) as bits: a row a block, `block` and `bits`, each group's tags ORed, the groups ANDed. */
function groupsAnded(t: TagFilter, param: (value: unknown) => string): string {
  // A participant fragment's names as its gram's, which holds the same meetings (namesBits).
  const groups = t.groups.map((g) => (g === t.participant?.group && t.participant.gram !== undefined ? [t.participant.gram] : g));
  const tags = param(groups.flat());
  const of = param(groups.flatMap((g, i) => g.map(() => i)));
  return `(SELECT o.block, bit_and(o.bits) AS bits FROM (
             SELECT g.i, x.block, bit_or(x.bits) AS bits
             FROM ${blocksOf(groups.flat(), param, tags)} x
             JOIN unnest(${tags}::text[], ${of}::int[]) g (tag, i) ON g.tag = x.tag
             GROUP BY g.i, x.block) o
           GROUP BY o.block HAVING count(*) = ${t.groups.length})`;
}

export const OLDEST_FIRST = 'ORDER BY m.started_at COLLATE "C" ASC, m.id COLLATE "C" ASC';

// ---------------------------------------------------------------------------------------------
// Filters held by tags (migration 0007): meeting_tags (tag, started_at, meeting_id) and search_tags (tag, passage_id)

/** The filters as tags: each group a list of tags of which a matching meeting has one. */
export interface TagFilter {
  groups: string[][];
  range: { from?: string; to?: string };
  /** How many meetings some of the groups' tags hold (meeting_tag_counts), read with what named them: a folder's. */
  meetings?: Map<string, number>;
  /** A participant fragment in no participant word: nothing matches. */
  none: boolean;
  /**
   * The title fragment's ILIKE patterns (either Unicode form) and the id's, when there is one: checked on the meeting row.
   * `pairs`: the groups hold two of the fragment's pairs of characters (pairsOf), whose candidates the total and the page
   * both read. `many`: a fragment inside words too many for their grams (titleWords), so in many titles.
   */
  title?: { forms: string[]; id: string; sure?: string; titled?: string[]; pairs?: boolean; many?: boolean };
  /**
   * A title fragment in more words than MAX_TITLE_WORDS, rare (RARE_TITLE_WORDS), or whose words' bits are made beside
   * other filters (`made`): their group (one of `groups`), and the fragment's ILIKE patterns, which check each meeting
   * instead when another filter drives.
   */
  rareWords?: { group: string[]; forms: string[]; id: string };
  /**
   * Tags of `groups` whose meetings are not kept as bits but are few (a title fragment's words with digits beside its
   * words of letters: MADE_BITS): their bits are made from their rows where the others' are read (blocksOf).
   */
  made?: string[];
  /** With `probeMany`, a participant fragment in too many words or names for tags: its ILIKE patterns, each meeting's participants checked. */
  probe?: string[];
  /**
   * With `probe`, the participants' gram (migration 0023) of the fragment whose meetings hold it but for those of its
   * strays (gramsTotal): its tag and text; `exact`, the fragment whole (none then).
   */
  gram?: { tag: string; text: string; exact: boolean };
  /**
   * The participant fragment held by tags: its group (one of `groups`) and its ILIKE patterns (a meeting's participants
   * may be checked instead); `gram`, the tag of its participants' gram (migration 0023) when it is that gram (1-3 ASCII
   * characters), or, for a list, when no name or e-mail holds that gram without it: the gram's meetings are exactly its
   * names' and words'.
   */
  participant?: {
    group: string[];
    patterns: string[];
    gram?: string;
    /** With a gram found for its names (a list): the meetings holding them, exactly (`held`, the gram's), and all meetings. */
    meetings?: { held: number; all: number };
  };
  /**
   * A participant fragment in too many names for tags, when the meetings it fails are few (handlesOf, ascending), or
   * fewer than a search's matches would cost to check (gramExceptions, in no order): those meetings (none: it is no
   * condition at all).
   */
  except?: string[];
  /**
   * Given `passageGram`, a participant fragment in too many names for tags (or in GRAM_NAMES or more) whose gram's
   * meetings are exactly its own (it is the gram, or no other name or e-mail holds the gram), when the gram's passages'
   * bits are kept and settled (kind `g`, migration 0027): the gram's tag, whose passages' bits a search reads (and, for
   * the passages of blocks without them, its meetings' bits, migration 0023).
   */
  passageGram?: { tag: string };
}

/**
 * A participant fragment in this many names and e-mails or more may be read from its gram's passages' bits (migration
 * 0027) by a search: kept grams are in 1/16 of the meetings or more, ~15 names' worth on the bench data (a name in ~175
 * meetings of 100k). Fewer are not looked for (their gram's statement, ~1.5 ms).
 */
const GRAM_NAMES = 16;

/** Beyond this many matching participant words, a fragment is matched handle by handle (as SQLite's MAX_PARTICIPANT_WORDS). */
const MAX_PARTICIPANT_WORDS = 32;

/**
 * The filters as tags, or undefined when one is not held by tags: a participant fragment found in more than
 * MAX_PARTICIPANT_HANDLES names and e-mails, when it holds a separator (it may span two words) or is in more than
 * MAX_PARTICIPANT_WORDS words, unless the meetings it fails are few (`except`; `exceptions: false`, to compare the two
 * ways, leaves them unread), or, given `lacking` (the most worth reading), no more than that many (gramExceptions);
 * given `passageGram`, its gram's passages' bits instead when the fragment is exactly that gram and they are kept.
 * `counted`: a list's near page without dates, whose total the tags' bits count when a title fragment is held by grams
 * kept as bits, or there is none, where a fragment in a few words is their tags however many meetings hold it;
 * `gramRange`, such a page with dates, where a fragment in too many names is counted from its gram when the range holds
 * that many meetings or more; `gramTotal`, a page without dates at any offset, where a fragment in too many names whose
 * failed meetings are too many is counted from its gram; `rareTitleWords`, the bounds of a title fragment's many words
 * read as their grams (RARE_TITLE_WORDS; tests lower them); `madeWithOthers: false`, a title fragment's words not of
 * letters not made bits beside other filters (madeBeside). Unknown series or folder -> NotFoundError, checked in the
 * same order as compileMeetingFilter.
 */
export async function compileTags(
  q: Queryable,
  filter: MeetingFilter,
  options: {
    probeMany?: boolean;
    exceptions?: boolean;
    counted?: boolean;
    gramRange?: number;
    grams?: boolean;
    lacking?: () => Promise<number>;
    passageGram?: boolean;
    gramTotal?: boolean;
    rareTitleWords?: typeof RARE_TITLE_WORDS;
    madeWithOthers?: boolean;
    /** The meetings of a folder's tag read with it (TagFilter.meetings): a search's estimates. */
    folderMeetings?: boolean;
  } = {},
): Promise<TagFilter | undefined> {
  const groups: string[][] = [];
  let title: TagFilter['title'];
  let rareWords: TagFilter['rareWords'];
  let made: string[] | undefined;
  /** The title's words when some are made bits beside other filters. */
  let madeBeside: string[] | undefined;
  /**
   * Bits made beside other filters only where the title's words are walked (listByTags: titleWordsWalked, namesWalk):
   * beside tags (a participant's word, a folder, a series) or a participant fragment's names, or alone beside a
   * participant fragment probed and counted from its gram. (Not with dates: walked within them, `eng` + `kowalski` in
   * six months 24 -> 11.5 ms at 100k meetings, but slower where another filter drives, `eng` + a series 3.1 -> 4.4, or
   * the names are not walked, `eng` + `Ines Kowalski` 12.3 -> 14.2.) Else compiled again without them: `eng` + `a`
   * (the union of `a`'s 10 words, which the walk's plan made once hashed) took 265 ms, against 19 with the title
   * checked; `Eng` + a folder + `per` (compiled to be walked, each of the folder's meetings probed, where `per` fails no
   * meeting and is otherwise no condition) 16 against 7, ~10 with the compile again.
   */
  const walkedBeside = (t: TagFilter): Promise<TagFilter | undefined> | TagFilter => {
    if (madeBeside === undefined) return t;
    const others = t.groups.filter((g) => g !== madeBeside);
    const walked =
      !t.except &&
      (t.probe === undefined ? others.every((g) => g.length === 1 || g.every((tag) => tag.startsWith('h'))) : t.gram !== undefined && others.length === 0);
    return walked ? t : compileTags(q, filter, { ...options, madeWithOthers: false });
  };
  let probe: string[] | undefined;
  let gram: TagFilter['gram'];
  let participant: TagFilter['participant'];
  let except: string[] | undefined;
  let passageGram: TagFilter['passageGram'];
  let none = false;
  // The series and folder are looked up at once with the title's words (a round trip each); their errors still come
  // in this order (a rejection is marked handled here and thrown where it is awaited).
  const early = <T>(promise: Promise<T>): Promise<T> => {
    promise.catch(() => {});
    return promise;
  };
  const series = filter.seriesId !== undefined ? early(getSeriesRefOrThrow(q, filter.seriesId)) : undefined;
  const folder = filter.folderPath !== undefined ? early(getFolderByPathOrThrow(q, filter.folderPath, { meetings: options.folderMeetings })) : undefined;
  if (filter.query !== undefined && filter.query !== '') {
    const fragment = matchFragment(filter.query, 'query');
    const forms = [...new Set(unicodeForms(fragment))];
    title = { forms: forms.map(ilike), id: ilike(fragment) };
    if (isShortFragment(fragment)) {
      const grams = await gramsOf(q, forms, fragment);
      groups.push(grams.tags);
      if (grams.exact) title = undefined;
      else title = { ...title, ...(grams.sure !== undefined && { sure: grams.sure }), ...(grams.titled !== undefined && { titled: grams.titled }) };
    } else if (isWordFragment(fragment, forms)) {
      // In a title or id exactly when in one of its words (migration 0012): the few words holding it, as their grams.
      // Its words not of letters may have their bits made (MADE_BITS); beside other filters, only where it is walked
      // (madeBeside, below), its title checked instead when another filter drives (as rareWords').
      const alone = [filter.participant, filter.folderPath, filter.seriesId].every((v) => v === undefined || v === '');
      const dated = filter.from !== undefined || filter.to !== undefined;
      const held = await titleWords(q, fragment, options.rareTitleWords, alone || (options.madeWithOthers !== false && !dated));
      if (held) {
        const { words } = held;
        if (words.length === 0) none = true;
        const group = words.map((w) => `gw${w}`);
        groups.push(group);
        if (held.made) made = held.made.map((w) => `gw${w}`);
        if (held.made ? !alone : words.length > MAX_TITLE_WORDS) rareWords = { group, forms: title.forms, id: title.id };
        if (held.made && !alone) madeBeside = group;
        title = undefined;
      } else title = { ...title, many: true };
    } else {
      // Across two words, exactly the pairs of words holding it (migration 0033) when they are few.
      const wordPairs = await titlePairs(q, fragment);
      if (wordPairs) {
        if (wordPairs.length === 0) none = true;
        groups.push(wordPairs);
        title = undefined;
      } else if (trigramless(fragment)) {
        // A pair in no meeting: none (`t 20`: 2.8 -> 0.15 ms). Words of one character each: two of its pairs. Else
        // (a word of two, `g De`) pg_trgm's trigram of its start or end, ` de`, proposes fewer titles than the pairs'
        // meetings to check (14 ms against 20; `n Pl` 12 against 21).
        const pairs = await pairsOf(q, fragment);
        if (pairs.length === 0) none = true;
        else if (!/[a-z0-9]{2}/i.test(fragment)) {
          groups.push(...pairs.map((tag) => [tag]));
          title = { ...title, pairs: true };
        }
      }
    }
  }
  if (series) {
    await series;
    groups.push([`s${filter.seriesId}`]);
  }
  /** The meetings of the groups' tags, where known. */
  const meetings = new Map<string, number>();
  if (folder) {
    const { id, meetings: held } = await folder;
    groups.push([`f${id}`]);
    if (held !== undefined) meetings.set(`f${id}`, held);
  }
  const range = filter.from === undefined && filter.to === undefined ? {} : parseDateRange(filter.from, filter.to);
  // A page counted from the bits: those of every group so far (a title fragment then held by grams alone).
  const bitsOnly = title === undefined && groups.every((g) => g.every(bitted(made)));
  const counted = options.counted === true && bitsOnly;
  if (filter.participant !== undefined && filter.participant !== '') {
    const fragment = matchFragment(filter.participant, 'participant');
    const patterns = [...new Set(unicodeForms(fragment))].map(ilike);
    // Without a separator it is in a name or e-mail exactly when it is in one of its words: their tags. Across words
    // (`Ines Kowalski`), or in more words than MAX_PARTICIPANT_WORDS, the tags of the names and e-mails that hold it
    // (migration 0015), as on SQLite: `29` (in the numbers of 80 words and 80 names at 100k meetings) had its meetings
    // read participant by participant and each match of the search joined to them.
    // In more words than that, its names and e-mails are read with those lacking it (handlesOf), in one scan.
    const spans = [...fragment].some((ch) => PARTICIPANT_SEPARATORS.includes(ch));
    // (With whether the newest meetings all hold it, for `common` below: asked only when the meetings it fails may be left
    // out, answered only when it is in several words, not more.)
    // (With its gram when in too many words for tags, where gramFirst below asks for it: in the same statement.)
    const gramAsked = fragment.length > 3 && options.lacking !== undefined && options.passageGram === true && options.exceptions !== false && isAscii(fragment);
    const inWords = spans ? undefined : await wordTags(q, patterns, wordsRead(fragment), options.exceptions !== false && !counted, gramAsked ? fragment : undefined);
    const words = inWords?.tags;
    // Its own participants' gram (migration 0023), when it is one (1-3 ASCII characters): the meetings of that gram are
    // exactly those of the fragment's names and words.
    const ownGram = isAscii(fragment) && !fragment.includes('\0') && fragment.length <= 3 ? peopleGramToken(fragment) : undefined;
    // A list's near page with dates holding GRAM_RANGE_MEETINGS meetings or more, and a fragment of 1-3 characters in
    // several words held by 1 meeting in DENSE_GRAM or more: counted from its gram (exact) within the dates' cover
    // (gramsTotal), its page walked newest first within the dates, each meeting probed (a few probes a meeting listed),
    // rather than its words' rows read within the dates and made distinct, or each meeting of the range probed to count
    // them (at 100k meetings, six months: `am`, in two words and every meeting, 123 ms; `a`, ten words, 86; five years
    // of `a` 466).
    // (The range is read only when asked, once: here, or for the exceptions below.)
    const gramsAllowed = options.probeMany === true && options.grams !== false && isAscii(fragment);
    let holding: Promise<boolean> | undefined;
    const rangeHoldsGram = () => (holding ??= rangeHolds(q, range, options.gramRange!));
    const dense = words !== undefined && words.length > 1 && ownGram !== undefined && gramsAllowed && options.gramRange !== undefined ? await peopleGram(q, fragment) : undefined;
    if (dense && dense.held * DENSE_GRAM >= dense.top && (await rangeHoldsGram())) {
      probe = patterns;
      gram = { tag: dense.tag, text: dense.text, exact: dense.exact };
      return walkedBeside({ groups, range, none, ...(meetings.size > 0 && { meetings }), ...(title && { title }), ...(rareWords && { rareWords }), ...(made && { made }), probe, gram });
    }
    // In several words and every recent meeting (`a`): the few meetings it fails, when few, rather than the union of its
    // words' tags (RECENT_MEETINGS_HOLDING). Not for a list counted from the bits: the union is counted there (`a`, in 10
    // words and every meeting: 3.3 -> ~1.5 ms; `am` 4.4 -> ~1.4), and its near page walked newest first is as cheap.
    // (wordTags answers this only in those cases.)
    const common = inWords?.recent === true;
    // On a near page without a title (`counted`, or `gramRange`: with dates holding that many meetings or more), an ASCII
    // fragment in too many names is counted from its gram (gramsTotal), its page walked newest first: the meetings it
    // fails are not looked for (`son`, none of 100k: 8.6 ms reading the participants lacking it).
    // (The range is read only once the names are known to be too many for tags, or before their scan: a round trip.)
    let grams = gramsAllowed && counted;
    const exceptionsWanted = async () => {
      if (gramsAllowed && !grams && options.gramRange !== undefined) grams = await rangeHoldsGram();
      return options.exceptions !== false && !grams;
    };
    // A search's fragment of 4 characters or more in too many words for tags (not across words, nor in every recent
    // meeting): its gram first. When the fragment is exactly that gram, its passages' bits are kept, and the meetings it
    // fails are too many to leave out (all but the gram's), they answer, and its names and e-mails are not scanned
    // (`person1`: 4,000 of them, 1.6-2 ms at 100k meetings, to find them too many, and the meetings it fails too); else
    // the gram is the one read below. (Of 1-3 characters, in too many words, it is in most meetings: `e` fails none, and
    // is then no condition at all.)
    const gramFirst = words === undefined && !spans && !common && gramAsked ? (inWords?.gram ?? (await peopleGram(q, fragment, patterns))) : undefined;
    if (gramFirst?.alone && gramFirst.kept && gramFirst.meetings - gramFirst.held > MAX_PARTICIPANT_EXCEPTIONS) passageGram = { tag: gramFirst.tag };
    // A fragment of 1-3 ASCII characters (its own gram, whose meetings are exactly its) in too many words for tags, or
    // in every recent meeting: the few meetings it fails from that gram's bits (gramExceptions), rather than every name
    // and e-mail scanned with the participants lacking it (handlesOf: `e`, `a` and `am` at 100k meetings, 1.2-1.9 ms).
    // As many as handlesOf would read at most (MAX_PARTICIPANT_EXCEPTIONS); past them, it is not asked for them either.
    const own =
      ownGram !== undefined && !spans && passageGram === undefined && (words === undefined || common) && (await exceptionsWanted())
        ? await gramExceptions(q, { tag: ownGram, text: fragment, exact: true }, patterns, MAX_PARTICIPANT_EXCEPTIONS)
        : undefined;
    // (Ascending, as handlesOf gives them.)
    own?.ids?.sort();
    const handles =
      own?.ids === undefined && passageGram === undefined && (words === undefined || (common && !own))
        ? await handlesOf(q, patterns, {
            tags: common ? 'none' : spans ? 'index' : 'scan',
            except: own ? async () => false : exceptionsWanted,
            // Across words, its gram asked with its names' tags when read below for many names.
            ...(spans && isAscii(fragment) && (options.passageGram || options.probeMany) && { gram: fragment }),
          })
        : undefined;
    const failed = own?.ids ?? handles?.except;
    const held = common && failed !== undefined ? undefined : (words ?? handles?.tags);
    if (held === undefined) {
      // In too many for tags: the few meetings it fails (none at all for `e` or the bench's domain at 100k meetings), or
      // undefined, or (`probeMany`: a list, which walks few meetings) each meeting's participants checked.
      except = failed;
      // Past those read, the meetings it fails from its gram's bits, when `lacking` (asked only then) finds them worth it.
      // Or, when it is exactly its gram and the search asks, that gram's passages' bits (the meetings it fails not read).
      if (except === undefined && options.lacking !== undefined && options.exceptions !== false && isAscii(fragment)) {
        const found = gramFirst ?? (await peopleGram(q, fragment, options.passageGram ? patterns : undefined));
        if (found?.alone && found.kept) passageGram = { tag: found.tag };
        else except = (await gramExceptions(q, found, patterns, await options.lacking())).ids;
      }
      if (except === undefined && passageGram === undefined) {
        if (!options.probeMany) return undefined;
        probe = patterns;
        // Past a near page (`gramTotal`), its gram only once the meetings it fails are too many to leave out (the walk to
        // a deep page then probes each meeting either way): `e` at offset 3,000, none failed, 6.9 ms; from its gram, 22.
        const found = grams || (gramsAllowed && options.gramTotal === true && bitsOnly) ? await peopleGram(q, fragment) : undefined;
        if (found) gram = { tag: found.tag, text: found.text, exact: found.exact };
      }
    } else {
      // Names enough to be in 1/16 of the meetings or more (a search asks): its gram's passages' bits rather than the
      // names' tags, when the fragment is exactly that gram and they are kept (`person12`, 111 e-mails: their 77,000 tag
      // rows read and tested against `the`'s bits, 60 ms).
      // A list's names (across words, GRAM_NAMES or more) read as bits: its gram's, when its meetings are exactly theirs
      // (no stray): one tag's blocks instead of every name's (`Ines Kowalski`, 38 names: 950 rows of bits at 100k meetings).
      const manyNames = words === undefined && held.length >= GRAM_NAMES && isAscii(fragment);
      const found = manyNames && (options.passageGram || options.probeMany) ? (gramFirst ?? handles?.gram ?? (await peopleGram(q, fragment, patterns))) : undefined;
      if (options.passageGram && found?.alone && found.kept) passageGram = { tag: found.tag };
      else {
        if (held.length === 0) none = true;
        groups.push(held);
        const named = options.probeMany && found?.alone ? found : undefined;
        const gram = ownGram ?? named?.tag;
        participant = { group: held, patterns, ...(gram !== undefined && { gram }), ...(named && { meetings: { held: named.held, all: named.meetings } }) };
      }
    }
  }
  return walkedBeside({
    groups,
    range,
    none,
    ...(meetings.size > 0 && { meetings }),
    ...(title && { title }),
    ...(rareWords && { rareWords }),
    ...(made && { made }),
    ...(probe && { probe }),
    ...(gram && { gram }),
    ...(participant && { participant }),
    ...(except && { except }),
    ...(passageGram && { passageGram }),
  });
}

/**
 * A date range's meetings from which a list of a participant fragment in too many names counts from its gram: fewer are
 * each probed (~11 µs a meeting at 100k, against ~5 ms more for the gram's and the range's cover's round trips and
 * bits: `person1` up to noon of a day, 26 of its meetings, 10.5 -> 15.3 ms; a week, 344, 11.5 -> 12.3; six months,
 * 9,402, 119 -> 15).
 */
const GRAM_RANGE_MEETINGS = 1000;

/** A fragment of 1-3 characters is listed with dates from its gram when it is held by 1 meeting in this many or more. */
const DENSE_GRAM = 2;

/** Whether `most` meetings or more start within the range (their start index read up to there). */
async function rangeHolds(q: Queryable, range: { from?: string; to?: string }, most: number): Promise<boolean> {
  const values: unknown[] = [];
  const within = startedWithin(range, (value) => `$${values.push(value)}`, 'm.started_at COLLATE "C"');
  const r = await one<{ n: number }>(q, `SELECT count(*)::int AS n FROM (SELECT 1 FROM meetings m WHERE ${within.join(' AND ')} LIMIT ${most}) x`, values);
  return r!.n >= most;
}

/** A participant's gram as peopleGram reads it (its row, `alone` and `kept` when the fragment's patterns are given). */
type PeopleGram = TagFilter['gram'] & { held: number; top: number; meetings: number; alone?: boolean; kept?: boolean };

/**
 * A participant fragment's gram (migration 0023) whose meetings are fewest: the fragment itself when of 1-3 characters,
 * else the rarest of its triples (at most MAX_GRAM_TRIPLES of them counted, spread over it), as SQLite's
 * participantGrams chooses. Its text lower-cased by PostgreSQL, as ILIKE does; with the meetings holding it (`held`) and
 * the highest meeting number (`top`). Undefined beyond ASCII.
 */
async function peopleGram(q: Queryable, fragment: string, patterns?: string[]): Promise<PeopleGram | undefined> {
  if (!isAscii(fragment)) return undefined;
  // Planned once for any fragment (rowsGeneric, where the pool has a companion for it): `person1`'s statement at 100k
  // meetings ran in ~0.6 ms against ~1.2 planned for its values at each call.
  const text = peopleGramSql('$1', patterns?.map((_, i) => `$${i + 2}`));
  const [r] = await rowsGenericOr<PeopleGram>(genericPoolOf(q), q, text, [fragment, ...(patterns ?? [])]);
  return r;
}

/**
 * peopleGram's statement, of the fragment `fragment` and its ILIKE patterns `patterns` (SQL expressions: parameters).
 * With the patterns, whether the gram's meetings are exactly the fragment's (`alone`): it is the fragment, or no name or
 * e-mail holds it without the fragment (no stray; its text lower-cased, as `folded` is); and whether its passages' bits
 * (migration 0027) are kept and settled (`kept`: built but for SETTLED_BLOCKS blocks at most, as many stale at most; its
 * term's row looked up by its key: as an EXISTS, the plan made once hashed every gram's row, ~0.17 ms).
 */
const peopleGramSql = (fragment: string, patterns?: string[]): string => {
  const alone = patterns
    ? `, c.exact OR NOT EXISTS (SELECT 1 FROM participant_handles h WHERE strpos(h.folded, c.text) > 0 AND NOT (${foldedLike('h', patterns)})) AS alone,
       coalesce((SELECT k.built FROM search_bitmap_terms k WHERE k.kind = 'g' AND k.term = c.tag)
                  > (SELECT coalesce(max(id), 0) >> 12 FROM search_passages) - ${SETTLED_BLOCKS}, false)
         AND (SELECT count(*) FROM search_bitmap_stale) <= ${SETTLED_BLOCKS} AS kept`
    : '';
  return `WITH f AS (SELECT lower(${fragment}) AS l),
          g AS (SELECT DISTINCT substr(f.l, x.i, least(3, length(f.l))) AS text, length(f.l) <= 3 AS exact
                FROM f, generate_series(0, ${MAX_GRAM_TRIPLES - 1}) j, LATERAL (SELECT 1 + j * greatest(length(f.l) - 3, 0) / ${MAX_GRAM_TRIPLES - 1} AS i) x
                WHERE octet_length(f.l) = length(f.l))
     SELECT c.tag, c.text, c.exact, c.held::int, (SELECT coalesce(max(n), 0) FROM meeting_numbers) AS top, ${MEETINGS}::float8 AS meetings${alone}
     FROM (SELECT 'q' || encode(convert_to(g.text, 'UTF8'), 'hex') AS tag, g.text, g.exact,
                  (SELECT coalesce(sum(bit_count(x.bits)), 0) FROM ${tagBlocks(`b.tag = 'q' || encode(convert_to(g.text, 'UTF8'), 'hex')`)} x) AS held FROM g) c
     ORDER BY c.held, c.tag LIMIT 1`;
};

/**
 * A handle of participant_handles (`alias`) holds one of the ILIKE patterns (SQL expressions), tested on its lower-cased
 * copy (migration 0018) as ILIKE lower-cases it: 2.3 -> ~0.4 ms over 4,000 handles. Each pattern lower-cased once (an
 * InitPlan): in a plan made for any values, lower() of a parameter ran for each handle (handlesOf's statement for
 * `person1` at 100k meetings, 2.8 ms against 1.4).
 */
const foldedLike = (alias: string, patterns: string[]): string => patterns.map((v) => `${alias}.folded LIKE (SELECT lower(${v})) ESCAPE '\\'`).join(' OR ');

/** Meetings of a fragment's strays (the names and e-mails holding its gram but not it) checked at most (each probed). */
const MAX_STRAY_MEETINGS = 2000;

/**
 * The total of a participant fragment in too many names for tags (with a folder, series or date range, no title) from
 * its gram's bits (migration 0023), in one statement: the gram's meetings less its strays' (the names and e-mails
 * holding the gram but not the fragment, at most MAX_GRAM_STRAYS: their tags' bits), with those of the strays' meetings
 * whose participants hold it (at most MAX_STRAY_MEETINGS, each probed), ANDed with the other filters' bits; a date
 * range as its calendar cover's (`dates`), less its first and last days' meetings outside it that hold the fragment
 * (probed). `person1` (1,111 names, 93,015 of 100k meetings, its gram `on1` no stray): every meeting's participants
 * probed before (~120 ms; with the biggest folder, its 8,636, ~70). Past the bounds, null: the caller lists again
 * without the gram (the meetings the fragment fails read, when few, or every meeting probed), rather than counting by
 * probing here (a fallback in the statement was planned on every call, ~1 ms).
 */
function gramsTotal(t: TagFilter | undefined, param: (value: unknown) => string, dates?: DateTerm): string | undefined {
  const gram = t?.gram;
  const dated = t?.range.from !== undefined || t?.range.to !== undefined;
  if (!gram || !t.probe || t.title || t.except || (dated && !dates) || !t.groups.every((g) => g.every(bitted(t.made)))) return undefined;
  // The other filters' groups (a folder, a series, a date range's cover), each its tags' bits ORed, ANDed in; their
  // tags for the strays' meetings and those outside the range.
  const tagGroups = [...t.groups, ...(dates ? [dates.tokens] : [])];
  const groups = tagGroups.map((group) => param(group));
  // The gram's blocks, less its strays' (their tags, an SQL array) when it has any, ANDed with the groups'.
  const held = (strays?: string) =>
    `(SELECT coalesce(sum(bit_count(${strays ? 'CASE WHEN o.bits IS NULL THEN g.bits ELSE g.bits & ~o.bits END' : 'g.bits'}${groups.map((_, i) => ` & a${i}.bits`).join('')})), 0)
      FROM ${tagBlocks(`b.tag = ${param(gram.tag)}`)} g ${strays ? `LEFT JOIN ${tagsOred(strays)} o ON o.block = g.block` : ''}
      ${tagGroups.map((tags, i) => `JOIN ${oredOf(tags, param, groups[i])} a${i} ON a${i}.block = g.block`).join(' ')})::int`;
  // (Each group in its own table: a title fragment's grams are in meeting_grams.)
  const inGroups = tagGroups
    .map((group, i) => ` AND EXISTS (SELECT 1 FROM ${tagTable(group[0] ?? '')} e WHERE e.tag = ANY(${groups[i]}::text[]) AND e.meeting_id = c.meeting_id)`)
    .join('');
  // The cover's first and last days' meetings (and those without a date) outside the range: those holding the fragment
  // (probed) and in the other groups were counted, and are taken away.
  const patterns = t.probe;
  const outside = dates ? outsideCover(dates, param, () => `${probedFor(patterns, param, 'c.meeting_id')}${inGroups}`) : '';
  if (gram.exact) return `(${held()}${outside})`;
  return `(SELECT CASE WHEN ${straysWithin('s')}
                  THEN ${held('s.tags')}
                       + (SELECT count(*)::int FROM (SELECT DISTINCT d.meeting_id FROM meeting_tags d WHERE d.tag = ANY(s.tags)) c WHERE ${probedFor(t.probe, param, 'c.meeting_id')}${inGroups})${outside}
                  END
           FROM ${straysOf(gram, t.probe, param)} s)`;
}

/**
 * A gram's strays (a subquery: `tags`, the tags of the names and e-mails holding the gram but not the fragment, its
 * ILIKE `patterns`, at most MAX_GRAM_STRAYS + 1 of them; `n`, how many), for a fragment longer than its gram.
 */
const straysOf = (gram: NonNullable<TagFilter['gram']>, patterns: string[], param: (value: unknown) => string): string =>
  `(SELECT coalesce(array_agg(x.tag), '{}') AS tags, count(*) AS n
    FROM (SELECT syntheo_handle_tag(h.handle) AS tag FROM participant_handles h
          WHERE h.handle ILIKE ${param(ilike(gram.text))} ESCAPE '\\' AND NOT (${foldedLike('h', patterns.map(param))}) LIMIT ${MAX_GRAM_STRAYS + 1}) x)`;

/** Whether the strays (straysOf, as `s`) are within their bounds: MAX_GRAM_STRAYS, their meetings MAX_STRAY_MEETINGS. */
const straysWithin = (s: string): string =>
  `${s}.n <= ${MAX_GRAM_STRAYS} AND (SELECT coalesce(sum(c.n), 0) FROM meeting_tag_counts c WHERE c.tag = ANY(${s}.tags)) <= ${MAX_STRAY_MEETINGS}`;

/** Meetings a participant fragment fails read from its gram's bits at most (a search's parameter: ~25 bytes each). */
export const MAX_GRAM_EXCEPTIONS = 25_000;

/**
 * The meetings a participant fragment in too many names fails, from its gram's bits (migration 0023; `gram`,
 * peopleGram's, or the fragment's own, exact), in one statement, when at most `most` (`ids`, in no order): the meeting
 * numbers whose bit is 0 (a meeting lacking the gram lacks the fragment), each one's meeting looked up (0024), with those
 * of the strays' meetings (gramsTotal's, within its bounds) whose participants lack it, probed (they hold the gram: none
 * is among the others). A deleted meeting's number stays (its bit 0): named, it holds no passage. No `ids` beyond ASCII,
 * past the strays' bounds, or past `most`. `person1` (in 93,015 of 100k meetings): its 6,985 in 13-22 ms, where
 * handlesOf gives up on them (more than 1,000).
 */
async function gramExceptions(
  q: Queryable,
  gram: (NonNullable<TagFilter['gram']> & { held?: number; top?: number }) | undefined,
  patterns: string[],
  most: number,
): Promise<{ ids?: string[] }> {
  // The meetings lacking its gram (and the numbers of those deleted) past `most`, when known: not read.
  if (!gram || (gram.top !== undefined && gram.held !== undefined && gram.top - gram.held > most)) return {};
  const values: unknown[] = [];
  const p = (value: unknown) => `$${values.push(value)}`;
  // The zeros of the gram's blocks (a block it lacks: all of them) from number 0 to the highest (the last block's bits
  // past it cleared: read as a dense block, they cost ~0.3 ms); their count less number 0's, which names no meeting,
  // bounds the read.
  // The ids as one JSON array, parsed here: as a text[], node-postgres parsed `person1`'s 6,985 in ~5.5 ms a call.
  const text = `WITH s AS MATERIALIZED ${gram.exact ? `(SELECT '{}'::text[] AS tags, 0 AS n)` : straysOf(gram, patterns, p)},
          top AS MATERIALIZED (SELECT coalesce(max(n), 0) AS n FROM meeting_numbers),
          lack AS MATERIALIZED (SELECT k.b AS block, CASE WHEN g.bits IS NULL THEN ~B'0'::bit(4096) ELSE ~g.bits END
                                       & CASE WHEN k.b < top.n >> 12 THEN ~B'0'::bit(4096) ELSE rpad(repeat('1', (top.n & 4095) + 1), 4096, '0')::bit(4096) END AS bits
                                FROM top, generate_series(0, top.n >> 12) k(b) LEFT JOIN ${tagBlocks(`b.tag = ${p(gram.tag)}`)} g ON g.block = k.b),
          ok AS MATERIALIZED (SELECT ${straysWithin('s')} AS strays, (SELECT coalesce(sum(bit_count(l.bits)), 0) FROM lack l) - 1 AS failing FROM s)
     SELECT CASE WHEN (SELECT strays AND failing <= ${p(most)} FROM ok) THEN (
              SELECT coalesce(json_agg(x.id), '[]')::text FROM (
                SELECT n.meeting_id AS id FROM lack l ${setBits('l.bits')}
                  CROSS JOIN LATERAL (SELECT n.meeting_id FROM meeting_numbers n WHERE n.n = l.block * 4096 + z.pos OFFSET 0) n
                  WHERE z.pos < 4096 AND l.block * 4096 + z.pos BETWEEN 1 AND (SELECT n FROM top)
                UNION ALL
                SELECT DISTINCT d.meeting_id FROM s, meeting_tags d WHERE d.tag = ANY(s.tags) AND NOT ${probedFor(patterns, p, 'd.meeting_id')}) x) END AS ids`;
  // An exact gram's (the fragment's own, of 1-3 characters) planned once for any (rowsGeneric): planned for its values,
  // `e`'s cost ~0.6 ms a call at 100k meetings.
  type Row = { ids: string | null };
  const [r] = gram.exact ? await rowsGenericOr<Row>(genericPoolOf(q), q, text, values) : [await one<Row>(q, text, values)];
  return r?.ids == null ? {} : { ids: JSON.parse(r.ids) as string[] };
}

/**
 * The names and e-mails holding a participant fragment (its ILIKE patterns) as tags, when at most
 * MAX_PARTICIPANT_HANDLES do; else (`except`) the meetings none of whose participants holds it, when they are few, as
 * SQLite's meetingsLacking finds them: the participants whose e-mail lacks it (read by e-mail from the names and e-mails
 * lacking it) or who have none (or those whose name lacks it, when fewer names than e-mails lack it: ` `), and the
 * meetings without participants (tag `hx`, migration 0017), each candidate then checked whole (ascending; none past
 * MAX_LACKING_READ participants read or MAX_PARTICIPANT_EXCEPTIONS candidates).
 * `tags`: `scan`, the names read here, in one scan with those lacking it (a fragment in many words: `e`, whose 1
 * character no trigram holds, was read twice, 6.9 and 6.1 ms); `index`, from their trigram index (handleTags), the scan
 * only past it; `none`, not read (the exceptions alone, however few the names). `except`: whether they are wanted, asked
 * only when the names do not answer (`index`) or before the scan.
 * (A handle written twice, which participant_handles allows, counts twice: a fragment near the bound may be read as
 * past it, and answered by the meetings it fails as exactly. DISTINCT cost 1.5 ms of 9.)
 * Each handle's participants are looked up by e-mail (LATERAL ... OFFSET 0): the planner, expecting ~200 a handle,
 * hashed all 400,000 participants to find that `e`'s 882 handles lacking it are no one's e-mail (93 ms against ~4).
 * Only the handles holding an `@` are: the participants whose e-mail holds none are read apart, from their own index
 * (migration 0025, usually empty). `am` at 100k meetings (in every e-mail, lacking 1,811 names) looked each of those
 * names up as an e-mail, for none: the statement 7.5 -> 1.5 ms.
 */
async function handlesOf(
  q: Queryable,
  patterns: string[],
  want: { tags: 'scan' | 'index' | 'none'; except: () => Promise<boolean>; gram?: string },
): Promise<{ tags?: string[]; except?: string[]; gram?: PeopleGram }> {
  if (want.tags === 'index') {
    // With the fragment's gram (`gram`: the fragment) when asked, read with them.
    const read = await handleTags(q, patterns, want.gram);
    if (read.tags !== undefined) return read;
  }
  // Asked once: the answer may take a round trip (compileTags' range of meetings).
  const except = await want.except();
  if (want.tags === 'index' && !except) return {};
  const holds = (columns: string[]) => ilikeAny(columns, patterns.map((_, i) => `$${i + 1}`));
  const handleHolds = foldedLike('x', patterns.map((_, i) => `$${i + 1}`));
  // The names and e-mails alone (those lacking it not asked for), scanned (`e`, in most of the 4,000 at 100k meetings, a
  // list's: ~0.2 ms against 1.2 scanning them all with the counts below).
  if (want.tags === 'scan' && !except) {
    const tags = await tagsWithin(q, `participant_handles x WHERE ${handleHolds}`, patterns);
    return tags === undefined ? {} : { tags };
  }
  // Past MAX_PARTICIPANT_HANDLES names, the participants lacking it are read (when asked), when the meetings lacking it
  // may be few (SQLite's fewMayLack: the newest meetings as a sample): `person1`, in 93% of the meetings at 100k, read
  // 20,000 participants lacking it in ~45 ms before giving up. And not when those participants are expected past the
  // bound by far, as SQLite's meetingsLacking expects them (`i`: ~120,000, 48 ms for nothing).
  const over = `(SELECT held FROM n) > ${MAX_PARTICIPANT_HANDLES}`;
  const many = except ? '(SELECT k.lacking FROM k)' : 'false';
  // The names and e-mails holding it, and those lacking it by kind, counted in one pass (`c`; counted twice, `person1`'s
  // statement ran 1.8 ms at 100k meetings, once 1.2). Kept (`h`) for what reads them again: their tags when few, the
  // participants lacking it when asked (`am`, in every e-mail: scanned again with the pattern, 2.0 ms; kept, 1.6).
  const text = `WITH h AS MATERIALIZED (SELECT x.handle, (${handleHolds}) AS holds FROM participant_handles x),
          c AS MATERIALIZED (SELECT count(*) FILTER (WHERE h.holds) AS held, count(*) FILTER (WHERE NOT h.holds AND h.mail = 0) AS names,
                                    count(*) FILTER (WHERE NOT h.holds AND h.mail > 0) AS emails, count(*) AS handles
                             FROM (SELECT h.holds, strpos(h.handle, '@') AS mail FROM h) h),
          n AS MATERIALIZED (SELECT ${want.tags === 'scan' ? '(SELECT c.held FROM c)::int' : MAX_PARTICIPANT_HANDLES + 1} AS held),
          s AS MATERIALIZED (SELECT c.names < c.emails AS by_name,
                                    least(c.names, c.emails) * 2 * (SELECT greatest(t.reltuples, 0) FROM pg_class t WHERE t.oid = 'participants'::regclass) / greatest(c.handles, 1) AS expected
                             FROM c),
          k AS MATERIALIZED (SELECT ${except ? `CASE WHEN ${over} AND (SELECT s.expected FROM s) <= ${2 * MAX_LACKING_READ} THEN ${fewMayLack(holds(['pa.name', 'pa.email']))} ELSE false END` : 'false'} AS lacking),
          found AS MATERIALIZED (
            SELECT p.meeting_id, (${holds(['p.name', 'p.email'])}) IS TRUE AS holds
              FROM h CROSS JOIN LATERAL (SELECT p.meeting_id, p.name, p.email FROM participants p WHERE p.email = h.handle OFFSET 0) p
              WHERE NOT h.holds AND strpos(h.handle, '@') > 0 AND ${many} AND NOT (SELECT s.by_name FROM s)
            UNION ALL SELECT p.meeting_id, (${holds(['p.name'])}) FROM participants p
              WHERE strpos(p.email, '@') = 0 AND (${holds(['p.email'])}) IS NOT TRUE AND ${many} AND NOT (SELECT s.by_name FROM s)
            UNION ALL SELECT p.meeting_id, (${holds(['p.name'])}) FROM participants p WHERE p.email IS NULL AND ${many} AND NOT (SELECT s.by_name FROM s)
            UNION ALL SELECT p.meeting_id, (${holds(['p.name', 'p.email'])}) IS TRUE
              FROM h CROSS JOIN LATERAL (SELECT p.meeting_id, p.name, p.email FROM participants p WHERE p.name = h.handle OFFSET 0) p
              WHERE NOT h.holds AND ${many} AND (SELECT s.by_name FROM s)
            LIMIT ${MAX_LACKING_READ + 1})
     SELECT CASE WHEN NOT ${over} THEN array(SELECT syntheo_handle_tag(h.handle) FROM h WHERE h.holds) END AS tags, (SELECT k.lacking FROM k) AS lacking,
            (SELECT count(*)::int FROM found) AS read,
            array(SELECT DISTINCT f.meeting_id FROM found f WHERE NOT f.holds) AS candidates,
            array(SELECT t.meeting_id FROM meeting_tags t WHERE t.tag = 'hx' AND ${many} LIMIT ${MAX_PARTICIPANT_EXCEPTIONS + 1}) AS bare`;
  // Planned once for any fragment (rowsGeneric): one scan of the handles whatever the patterns, the participants looked
  // up by key; planning it cost ~0.7 ms a call.
  type Row = { tags: string[] | null; lacking: boolean; read: number; candidates: string[]; bare: string[] };
  const [r] = await rowsGenericOr<Row>(genericPoolOf(q), q, text, patterns);
  if (r!.tags !== null) return want.tags === 'scan' ? { tags: r!.tags } : {};
  if (!r!.lacking || r!.read > MAX_LACKING_READ) return {};
  const candidates = [...new Set([...r!.candidates, ...r!.bare])];
  if (candidates.length > MAX_PARTICIPANT_EXCEPTIONS) return {};
  if (candidates.length === 0) return { except: [] };
  const lacking = await rows<{ id: string }>(
    q,
    `SELECT c.id FROM unnest($${patterns.length + 1}::text[]) c(id)
     WHERE NOT EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = c.id AND (${holds(['p.name', 'p.email'])})) ORDER BY c.id COLLATE "C"`,
    [...patterns, candidates],
  );
  return { except: lacking.map((x) => x.id) };
}

/** The newest RECENT_MEETINGS_HOLDING meetings (`r.id`) none of whose participants `matched` (over `pa`) holds. */
const recentLacking = (matched: string) => `(SELECT m.id FROM meetings m ${NEWEST_FIRST} LIMIT ${RECENT_MEETINGS_HOLDING}) r WHERE NOT ${participantsProbed(matched, 'r.id')}`;

/** As SQLite's fewMayLack (a boolean SQL expression): the newest meetings lacking `matched` (over `pa`), in proportion, at most MAX_PARTICIPANT_EXCEPTIONS. */
const fewMayLack = (matched: string) =>
  `(SELECT count(*) FROM ${recentLacking(matched)}) * ${MEETINGS} <= ${MAX_PARTICIPANT_EXCEPTIONS * RECENT_MEETINGS_HOLDING}`;

/**
 * The tags of the participant words holding a fragment (its ILIKE patterns; the words are lower-cased as ILIKE compares),
 * none when more than MAX_PARTICIPANT_WORDS. Read as `read` says (WordsRead). With `gram` (the fragment), its gram as
 * peopleGram reads it with its patterns, when in too many words: the statement compileTags then made for it (gramFirst,
 * `person1`) saved, a round trip.
 * `recent` asked: with, when in several words (not more), whether each of the RECENT_MEETINGS_HOLDING newest meetings has
 * a participant holding it, in the same statement (a statement of its own before: `the` + `a`, 0.70 + 0.83 ms -> 1.11).
 */
async function wordTags(q: Queryable, patterns: string[], read: WordsRead, recent: boolean, gram?: string): Promise<{ tags?: string[]; recent: boolean; gram?: PeopleGram }> {
  const p = patterns.map((_, i) => `$${i + 1}`);
  const heldByRecent = `NOT EXISTS (SELECT 1 FROM ${recentLacking(ilikeAny(['pa.name', 'pa.email'], p))})`;
  // `many`: more words than tags hold (as many rows as wordsHolding reads, or more distinct words than the bound).
  const text = `WITH ${wordsHolding('participant_words', p, read, MAX_PARTICIPANT_WORDS)},
          n AS MATERIALIZED (SELECT (SELECT count(*) FROM r) >= ${wordRows(MAX_PARTICIPANT_WORDS)} OR (SELECT count(*) FROM w) > ${MAX_PARTICIPANT_WORDS} AS many,
                                    (SELECT count(*) FROM w) AS words)
     SELECT CASE WHEN NOT n.many THEN array(SELECT w.word FROM w) END AS words,
            ${recent ? `CASE WHEN NOT n.many AND n.words >= 2 THEN ${heldByRecent} END` : 'NULL::boolean'} AS recent,
            ${gram !== undefined ? gramColumn('n.many', `$${p.length + 1}`, p) : 'NULL::jsonb'} AS gram
     FROM n`;
  const [r] = await readWords<{ words: string[] | null; recent: boolean | null; gram: PeopleGram | null }>(q, read, text, gram !== undefined ? [...patterns, gram] : patterns);
  return { ...(r!.words !== null && { tags: r!.words.map((w) => `p${w}`) }), recent: r!.recent === true, ...(r!.gram !== null && { gram: r!.gram }) };
}

/**
 * The words of `table` (participant_words, title_words) holding one of `patterns` (ILIKE patterns, SQL expressions), read
 * as `read` says, as two common table expressions: `r`, their rows up to wordRows(`words`), and `w`, those made distinct,
 * up to `words` + 1. A DISTINCT of the scan read every row holding it before the first came out (hashed) where the plan
 * did not expect many (`person1`, in 1,111 words: 0.47 ms in a plan made once, 0.15 read in word order). As many rows as
 * wordRows are more words than `words`; fewer hold every word holding it (a word may have a copy: neither table has a
 * unique key).
 */
const wordsHolding = (table: string, patterns: string[], read: WordsRead, words: number): string => {
  const source = read === 'all' ? `(SELECT word FROM ${table} OFFSET 0) w` : table;
  const holds = patterns.map((v) => (read === 'planned' ? wordLike : wordLikeOnce)('word', v)).join(' OR ');
  return `r AS MATERIALIZED (SELECT word FROM ${source} WHERE ${holds} LIMIT ${wordRows(words)}),
          w AS MATERIALIZED (SELECT DISTINCT word FROM r LIMIT ${words + 1})`;
};

/** The rows wordsHolding reads for up to `words` words: twice one more. */
const wordRows = (words: number): number => 2 * (words + 1);

/**
 * A statement of wordsHolding's words run planned once (rowsGeneric) but for a fragment its trigrams may not find
 * (`planned`): planning it for its values cost ~0.16-0.27 ms a call at 100k meetings (`person1`'s participant words:
 * 0.15 ms executed, 0.27 planned).
 */
const readWords = <R extends QueryResultRow>(q: Queryable, read: WordsRead, text: string, values: unknown[]): Promise<R[]> =>
  read === 'planned' ? rows<R>(q, text, values) : rowsGenericOr<R>(genericPoolOf(q), q, text, values);

/**
 * A column of a participant's gram as peopleGram reads it with the fragment's patterns (`fragment` and `patterns`, SQL
 * expressions), as JSON, when `when` holds (else null): read in the statement before it, a round trip less.
 */
const gramColumn = (when: string, fragment: string, patterns: string[]): string =>
  `CASE WHEN ${when} THEN (SELECT to_jsonb(g) FROM (${peopleGramSql(fragment, patterns)}) g) END`;

/**
 * How a participant fragment's words are read (wordTags): every one tested (`all`: 1-2 characters, which no trigram
 * holds), from the trigram index (`index`: three ASCII letters or digits in a row in each of its forms, NFC and NFD,
 * a trigram of pg_trgm's whatever the patterns), both by a plan made once; or by a plan made for its values (`planned`: `a.b`, `é-e`, whose trigrams the
 * index may not hold; a plan for any values read the whole index for a fragment without any, 0.75 ms against 0.22 for
 * every word at 100k meetings).
 */
type WordsRead = 'all' | 'index' | 'planned';
const wordsRead = (fragment: string): WordsRead =>
  isShortFragment(fragment) ? 'all' : unicodeForms(fragment).every((form) => /[a-z0-9]{3}/i.test(form)) ? 'index' : 'planned';

/** A title fragment that trigrams cannot find (pg_trgm indexes 3 characters and more): 1-2 characters. */
const isShortFragment = (fragment: string): boolean => [...fragment].length <= 2;

/**
 * Beyond this many matching title words, a fragment is matched on the titles the trigram index proposes, unless the
 * words are at most RARE_TITLE_WORDS.words and in at most RARE_TITLE_WORDS.meetings meetings (their rows summed).
 */
const MAX_TITLE_WORDS = 32;

/**
 * A title fragment's words alone walked merged when at most this many: a branch each, three times, in a statement planned
 * once a connection (its generic plan; `ing`'s 6 words: 9.5 ms to plan, ~1.5 ms a word).
 */
const MERGED_TITLE_WORDS = 8;

/**
 * Many title words in few meetings each (`#917`: 111 words, `#10917`..., one meeting each at 100k) are their grams all
 * the same: read in key order, ~1 µs a row, in a plan that does not hang on the estimates of ILIKE over the titles the
 * trigram index proposes (it keeps no `#`). With the statistics the bench load left, `#917` took 26 ms that way, and with
 * a participant word and dates 150 (Kim's ~13,000 meetings each probed for the title); after a fresh ANALYZE, 4 and 8.
 */
const RARE_TITLE_WORDS = { words: 500, meetings: 2_000 };

/**
 * A title fragment's words not of ASCII letters (no bits: migration 0030) have their bits made from their rows where
 * its words of letters are read as bits, when these are at most MERGED_TITLE_WORDS and those in at most this many
 * meetings in all. Three letters are in ~40 of the random parts of the ids at 100k meetings, one meeting each, beside
 * the title's words holding them (`eng`: `engineering` and 47 others): their titles were checked one by one (the
 * trigram index proposed ~10,000), ~13 ms, ~24 with a participant's word.
 */
const MADE_BITS = { meetings: 2_000 };

/**
 * The title words holding `fragment` (a word fragment), or undefined when they are too many for their grams
 * (MAX_TITLE_WORDS, RARE_TITLE_WORDS, MADE_BITS). `made`: those of them whose bits are made (MADE_BITS, when
 * `madeAllowed`).
 */
async function titleWords(q: Queryable, fragment: string, rare = RARE_TITLE_WORDS, madeAllowed = true): Promise<{ words: string[]; made?: string[] } | undefined> {
  // Read as a participant's words are (wordsHolding; `undefined` for as many rows as make too many words). The meetings
  // of all of them past MAX_TITLE_WORDS, and of those not of letters.
  const read = wordsRead(fragment);
  const sum = (which: string) => `(SELECT coalesce(sum(c.n), 0) FROM w x JOIN meeting_tag_counts c ON c.tag = 'gw' || x.word${which})::float8`;
  const text = `WITH ${wordsHolding('title_words', ['$1'], read, rare.words)}
     SELECT CASE WHEN (SELECT count(*) FROM r) < ${wordRows(rare.words)} THEN coalesce(array_agg(w.word), '{}') END AS words,
            CASE WHEN count(*) > ${MAX_TITLE_WORDS} AND count(*) <= ${rare.words} THEN ${sum('')} END AS meetings,
            CASE WHEN count(*) <= ${rare.words} AND bool_or(w.word ~ '^[a-z]+$') AND NOT bool_and(w.word ~ '^[a-z]+$') THEN ${sum(" WHERE x.word !~ '^[a-z]+$'")} END AS unlettered
     FROM w`;
  const [r] = await readWords<{ words: string[] | null; meetings: number | null; unlettered: number | null }>(q, read, text, [ilike(fragment)]);
  const { words, meetings, unlettered } = r!;
  if (words === null) return undefined;
  const made = words.filter((w) => !hasBits(`gw${w}`));
  if (madeAllowed && unlettered !== null && unlettered <= MADE_BITS.meetings && words.length - made.length <= MERGED_TITLE_WORDS) return { words, made };
  if (words.length <= MAX_TITLE_WORDS) return { words };
  return words.length <= rare.words && meetings! <= rare.meetings ? { words } : undefined;
}

/**
 * A title fragment answered from title words (migration 0012): no separator (it is then inside one word), at most 32
 * characters (a longer word is kept as chunks of 64 every 32), and one Unicode form (the id is compared in the
 * fragment's own form only, and title_words holds the id's words with the title's).
 */
const isWordFragment = (fragment: string, forms: string[]): boolean =>
  forms.length === 1 && [...fragment].length <= 32 && ![...fragment].some((ch) => PARTICIPANT_SEPARATORS.includes(ch));

/**
 * A title fragment across two words as migration 0033 keeps their pairs: a word's last 1-32 characters, 1-8 separators,
 * and none or 1-32 characters of the next word, all printable ASCII. The pairs are lower-cased as the titles are, by
 * lower(); ILIKE folds its pattern otherwise beyond ASCII (`n \u212a`, KELVIN SIGN, finds `KELVIN \u212a` but not the
 * `kelvin k` lower() makes of it).
 */
const PAIR_FRAGMENT = new RegExp(`^([^${SEPARATOR_CLASS}]{1,32})([${SEPARATOR_CLASS}]{1,8})([^${SEPARATOR_CLASS}]{0,32})$`);

/**
 * The title pairs (migration 0033) of a fragment across two words (PAIR_FRAGMENT) whose meetings are exactly its own:
 * a word's end and separators (`ing `), the `gv` pairs holding it; with the next word's start, the `gp` pairs holding
 * it, unless the fragment's part of it has 2+ characters and a pair holds its first character as a next word not kept
 * whole (`review #2` in `review #` + U+0001: those titles would need checking). Undefined then, or beyond
 * MAX_TITLE_WORDS pairs, or for another fragment; none when no title holds it.
 */
async function titlePairs(q: Queryable, fragment: string): Promise<string[] | undefined> {
  const m = /^[\x20-\x7e\t\n\r]+$/.test(fragment) ? PAIR_FRAGMENT.exec(fragment) : null;
  if (!m) return undefined;
  const [, end, run, next] = m as unknown as [string, string, string, string];
  // Two characters or more of a next word not of letters (`review #2`): only a pair of U+0001 may hold it, its titles
  // then checked (not looked up: ~0.7 ms more for `review #2`, ~7 in all at 100k meetings).
  if (next.length > 1 && !/^[a-z]+$/i.test(next)) return undefined;
  const held = `${next === '' ? 'gv' : 'gp'}${ilike(end + run + next)}`;
  // The next word's first character and the mark of a word not kept whole: only when the fragment holds more of it.
  const unsure = next.length > 1 ? `gp${ilike(end + run + next[0]!).slice(0, -1)}\u0001` : null;
  const [r] = await rowsPlanned<{ tags: string[]; unsure: boolean }>(
    q,
    `SELECT coalesce(array_agg(p.tag) FILTER (WHERE p.tag ILIKE $1 ESCAPE '\\'), '{}') AS tags, coalesce(bool_or(p.tag ILIKE $2 ESCAPE '\\'), false) AS unsure
     FROM (SELECT DISTINCT tag FROM title_pairs WHERE tag ILIKE $1 ESCAPE '\\' OR tag ILIKE $2 ESCAPE '\\') p`,
    [held, unsure],
  );
  return r!.unsure || r!.tags.length > MAX_TITLE_WORDS ? undefined : r!.tags;
}

/**
 * A title fragment across words none of which has 3 characters (`a L`, `y #1`), in ASCII: pg_trgm takes trigrams within
 * words alone, so for words of one character its index proposes every title with a word ending or starting as each
 * of them (`a L`: 15,824 titles at 100k meetings, each checked, 23 ms, for 651).
 */
const trigramless = (fragment: string): boolean => /^[\x20-\x7e]+$/.test(fragment) && !/[a-z0-9]{3}/i.test(fragment) && /[^a-z0-9]/i.test(fragment);

/**
 * The grams (migration 0008) of the two pairs of adjacent characters of a trigramless fragment held by the fewest
 * meetings: a meeting whose title or id holds the fragment holds both (`a L`: `a ` and ` l`, 10,028 and 6,593 meetings,
 * both in 651: 2 ms merged), its title then checked. None when a pair is in no meeting (meeting_tag_counts).
 */
async function pairsOf(q: Queryable, fragment: string): Promise<string[]> {
  const lower = fragment.toLowerCase();
  const pairs = [...new Set([...lower].slice(1).map((c, i) => gramTag(lower[i]! + c)))];
  const counts = new Map(
    (await rows<{ tag: string; n: number }>(q, 'SELECT tag, sum(n)::int AS n FROM meeting_tag_counts WHERE tag = ANY($1::text[]) GROUP BY tag', [pairs])).map((r) => [r.tag, r.n]),
  );
  const held = (tag: string) => counts.get(tag) ?? 0;
  return pairs.some((tag) => held(tag) === 0) ? [] : pairs.sort((a, b) => held(a) - held(b)).slice(0, 2);
}

/** The table holding a tag: the title grams (`g…`, migrations 0008-0009) apart from the filter tags. */
const tagTable = (tag: string): string => (tag.startsWith('g') ? 'meeting_grams' : 'meeting_tags');

/** A gram's tag: `g<hex>` when all ASCII (migration 0008), else `gu<hex>` (0009), of its UTF-8 bytes. */
const gramTag = (gram: string): string => {
  const bytes = Buffer.from(gram, 'utf8');
  return `${bytes.every((b) => b < 0x80) ? 'g' : 'gu'}${bytes.toString('hex')}`;
};

/**
 * A short title fragment as meeting_grams tags (migrations 0008-0009): each character and pair of adjacent
 * characters of the lower-cased title and id. ILIKE matches the lower-cased pattern in the lower-cased text, so
 * each spelling (either Unicode form for the title, the fragment itself for the id) is lower-cased here by the
 * database's own lower(). The fragment's own spelling, when it is 1-2 characters and one of the title's too, is
 * `sure`: a meeting holding its gram matches. When every spelling holds that one, its gram is exactly the matches
 * (`exact`: `ø`, `会議`, and `É` or `e` in either case). Otherwise the tags are a superset: a gram every spelling
 * needs, or one gram per spelling (`é`: composed or decomposed), whichever fewer meetings hold (meeting_tag_counts).
 * A candidate holding the sure gram matches; one holding the gram of a title spelling of 1-2 characters (`titled`,
 * those spellings) matches when its id lacks them all (the gram is then its title's); the others' titles are checked.
 */
async function gramsOf(q: Queryable, forms: string[], fragment: string): Promise<{ tags: string[]; exact: boolean; sure?: string; titled?: string[] }> {
  const lower = new Map(
    (await rows<{ v: string; l: string }>(q, 'SELECT v, lower(v) AS l FROM unnest($1::text[]) v', [[...new Set([...forms, fragment])]])).map((r) => [r.v, r.l]),
  );
  const spellings = [...new Set(lower.values())];
  const own = lower.get(fragment)!;
  const sure = [...own].length <= 2 && forms.some((f) => lower.get(f) === own) ? own : undefined;
  if (sure !== undefined && spellings.every((l) => l.includes(sure))) return { tags: [gramTag(sure)], exact: true };
  // The grams each spelling needs, pairs first: its pairs of adjacent characters and its characters.
  const needs = spellings.map((l) => {
    const chars = [...l];
    return [...new Set([...chars.slice(1).map((c, i) => gramTag(chars[i]! + c)), ...chars.map(gramTag)])];
  });
  const counts = new Map(
    (await rows<{ tag: string; n: number }>(q, 'SELECT tag, sum(n)::int AS n FROM meeting_tag_counts WHERE tag = ANY($1::text[]) GROUP BY tag', [[...new Set(needs.flat())]])).map((r) => [
      r.tag,
      r.n,
    ]),
  );
  const held = (tag: string) => counts.get(tag) ?? 0;
  const rarest = (tags: string[]) => tags.reduce((a, b) => (held(b) < held(a) ? b : a));
  const each = [...new Set(needs.map(rarest))];
  const common = needs[0]!.filter((g) => needs.every((n) => n.includes(g)));
  const tags = common.length > 0 && held(rarest(common)) <= each.reduce((sum, tag) => sum + held(tag), 0) ? [rarest(common)] : each;
  const titled = [...new Set(forms.map((f) => lower.get(f)!))].filter((l) => [...l].length <= 2 && tags.includes(gramTag(l)));
  return { tags, exact: false, ...(sure !== undefined && tags.includes(gramTag(sure)) && { sure: gramTag(sure) }), ...(titled.length > 0 && { titled }) };
}

/**
 * The tags (migration 0015) of the names and e-mails holding a participant fragment (its ILIKE patterns), from the
 * trigram index of participant_handles (syntheo_handles_like); undefined when more than MAX_PARTICIPANT_HANDLES. Until 0015
 * the meetings of up to 1,000 were named by id, and more were read participant by participant with every match of the
 * search joined to its meeting: `the` + `Ines Kowalski` (38 names, 7,381 meetings) 150-300 ms. With `gram` (the
 * fragment), when they are GRAM_NAMES or more, its gram as peopleGram reads it with its patterns (which compileTags then
 * reads for many names), in the same statement: one round trip where there were two.
 */
async function handleTags(q: Queryable, patterns: string[], gram?: string): Promise<{ tags?: string[]; gram?: PeopleGram }> {
  const gramOf = gram !== undefined ? gramColumn(`cardinality(t.tags) >= ${GRAM_NAMES}`, '$2', patterns.map((_, i) => `$${i + 3}`)) : 'NULL::jsonb';
  const text = `SELECT t.tags, ${gramOf} AS gram FROM (${tagsWithinSql('syntheo_handles_like($1::text[]) x(handle)')}) t`;
  const values = gram !== undefined ? [patterns, gram, ...patterns] : [patterns];
  const [r] = await rowsGenericOr<{ tags: string[] | null; gram: PeopleGram | null }>(genericPoolOf(q), q, text, values);
  return { ...(r!.tags !== null && { tags: r!.tags }), ...(r!.gram !== null && { gram: r!.gram }) };
}

/**
 * The tags of the names and e-mails `handles` gives (an SQL FROM item of `x.handle`, its `values`), or undefined when
 * more than MAX_PARTICIPANT_HANDLES: read up to one past the bound, planned once, their tags made only when within it
 * (made for 501 names and sent, `e`'s took 0.53 ms at 100k meetings against 0.15).
 */
async function tagsWithin(q: Queryable, handles: string, values: unknown[]): Promise<string[] | undefined> {
  const [r] = await rowsGenericOr<{ tags: string[] | null }>(genericPoolOf(q), q, tagsWithinSql(handles), values);
  return r!.tags ?? undefined;
}

/** tagsWithin's statement: `tags`, null past the bound. */
const tagsWithinSql = (handles: string): string =>
  `WITH x AS MATERIALIZED (SELECT x.handle FROM ${handles} LIMIT ${MAX_PARTICIPANT_HANDLES + 1})
   SELECT CASE WHEN (SELECT count(*) FROM x) <= ${MAX_PARTICIPANT_HANDLES} THEN array(SELECT syntheo_handle_tag(x.handle) FROM x) END AS tags`;

/** From this offset on, a list by one tag alone skips its entries by start alone (keyedWalk). */
const DEEP_PAGE = 500;

/**
 * A participant fragment's words held by at most this many meetings (their counts summed) drive a list whose total is
 * not counted from the bits, as do those whose meetings are fewer than 16 times a date range's: their meetings gathered
 * (~0.5 µs each) cost less than the other filters' meetings probed (~8 µs each) unless those are 16 times fewer.
 */
const FEW_WORD_MEETINGS = 20_000;

/** Rows of a tag read when choosing which one drives a list: enough to tell a rare tag from a common one. */
const DRIVER_PROBE = 2000;

/**
 * Each group's rows within `range`, at most DRIVER_PROBE, in one statement (a round trip each cost more than the count).
 * Without dates, its tags' counts (meeting_tag_counts, a few rows a tag) rather than up to 2,000 rows read a group (a
 * title word and a participant word: ~1.3 -> ~0.4 ms).
 */
async function groupRows(q: Queryable, groups: string[][], range: TagFilter['range']): Promise<number[]> {
  const values: unknown[] = [];
  const p = (value: unknown) => `$${values.push(value)}`;
  const within = startedWithin(range, p, 't.started_at');
  const probes = groups.map((group) =>
    within.length === 0
      ? `least((SELECT coalesce(sum(c.n), 0) FROM meeting_tag_counts c WHERE c.tag = ANY(${p(group)}::text[])), ${DRIVER_PROBE})::int`
      : `(SELECT count(*) FROM (SELECT 1 FROM ${tagTable(group[0]!)} t WHERE t.tag = ANY(${p(group)}::text[]) ${within.map((c) => `AND ${c}`).join(' ')} LIMIT ${DRIVER_PROBE}) x)::int`,
  );
  const [r] = await rowsPlanned<{ sizes: number[] }>(q, `SELECT ARRAY[${probes.join(', ')}] AS sizes`, values);
  return r!.sizes;
}

/** A group of at most this many tags is probed for each of a driver's few rows (a lookup each), not joined. */
const PROBED_GROUP_TAGS = 8;

/**
 * The meetings of `source` (a FROM item of `started_at`, `meeting_id`: one tag's key range, or several merged and made
 * distinct) from `skip` on, `take` of them, in list order (start, then id in byte order), from newest (DESC) or oldest
 * (ASC), when `when` holds. The entries skipped are walked by start alone, the key's own order: sorted by id in byte
 * order as they passed (an incremental sort: the key's ids are in the default collation), a deep page cost three times
 * the walk (`kowalski` at offset 20,000: 25 ms against 8). Then only the entries of the page's starts are read and
 * sorted; when the entry before the page has the page's first start (a tie across its edge), the entries of that start
 * before the page are those not counted among the strictly newer (older) ones.
 */
function keyedWalk(sourceOf: (dir: 'DESC' | 'ASC') => string, when: string, skip: string, take: string, dir: 'DESC' | 'ASC'): string {
  const source = sourceOf(dir);
  const [beyond, toward] = dir === 'DESC' ? ['>', '<='] : ['<', '>='];
  const back = dir === 'DESC' ? '>=' : '<=';
  return `SELECT k.meeting_id AS id
    FROM (SELECT e.first, e.last, CASE WHEN e.prev IS DISTINCT FROM e.first THEN 0
                 ELSE ${skip} - (SELECT count(*) FROM ${source} x WHERE x.started_at ${beyond} e.first) END AS k
          FROM (SELECT a[o] AS prev, a[o + 1] AS first, a[cardinality(a)] AS last
                FROM (SELECT array_agg(w.started_at ORDER BY w.started_at ${dir}) AS a, CASE WHEN ${skip} > 0 THEN 1 ELSE 0 END AS o
                      FROM (SELECT t.started_at FROM ${source} t WHERE ${when}
                            ORDER BY t.started_at ${dir} OFFSET greatest(${skip} - 1, 0) LIMIT ${take} + 1) w) z) e) b
    CROSS JOIN LATERAL (SELECT t.meeting_id FROM ${source} t WHERE t.started_at ${toward} b.first AND t.started_at ${back} b.last
                        ORDER BY t.started_at ${dir}, t.meeting_id COLLATE "C" ${dir} OFFSET b.k LIMIT ${take}) k`;
}

/** One tag's key range as keyedWalk's source. */
const tagRange = (table: string, tag: string): string => `(SELECT started_at, meeting_id FROM ${table} WHERE tag = ${tag})`;

/**
 * Several tags' key ranges (a participant fragment's words) below the start `below` as keyedWalk's source walking `dir`:
 * merged in key order and made distinct as they stream (a Merge Append and a Unique; `om`'s two words at offset 20,000:
 * 23,560 entries read, ~5 ms, where its 66,446 were gathered and sorted first, 41 ms). DISTINCT ON, not DISTINCT: the
 * planner, not knowing how deep the walk goes, hashed all of them (46 ms); each range in the same order: without it, they
 * were appended and sorted (29 ms). `many`: more tags (an array parameter), few rows each, read as one more range.
 */
const tagsMerged = (table: string, tags: string[], dir: 'DESC' | 'ASC', below?: string, many?: string, within: string[] = []): string =>
  `(SELECT DISTINCT ON (u.started_at, u.meeting_id) u.started_at, u.meeting_id
    FROM (${[...tags.map((tag) => `tag = ${tag}`), ...(many === undefined ? [] : [`tag = ANY(${many}::text[])`])]
      .map((held) => `(SELECT started_at, meeting_id FROM ${table} WHERE ${[held, ...(below === undefined ? [] : [`started_at < ${below}`]), ...within].join(' AND ')} ORDER BY started_at ${dir}, meeting_id ${dir})`)
      .join(' UNION ALL ')}) u
    ORDER BY u.started_at ${dir}, u.meeting_id ${dir})`;

/**
 * Where a walk of several tags' meetings newest first reaches `offset`, from their bits (`bits`: tagsOred of the tags, or
 * a gram's blocks holding the same meetings) and the months': common table expressions, `wb` (those bits by block, which
 * also give their total: MERGED_TOTAL)
 * then the others, ending with `ms` (`upper`, `skip`). Each month's meetings among the tags' are
 * counted (a month's tag ANDed with the tags' ORed), and the walk starts below the month holding the offset's meeting
 * (`upper`, above every start of that month: `2026-10-:`, as `:` follows the digits), skipping only the month's newer
 * ones (`skip`): `om` at offset 20,000 walked 23,560 entries of its two words, ~5 ms, and now a month's ~1,000. A month
 * tag is a start's text (its first 7 characters), as the list orders by. When one of the meetings has a start that is
 * not a date (tag `dx`, sorted among the others by its text), or the offset is past them all, from the top: `upper` above
 * every start (the greatest, and one more character), `skip` the offset.
 */
const monthSkip = (bits: string, offset: string): string[] => [
  `wb AS MATERIALIZED ${bits}`,
  `mc AS MATERIALIZED (SELECT mo.tag, sum(bit_count(mo.bits & wb.bits))::bigint AS n
     FROM ${tagBlocks(`(b.tag >= 'm' AND b.tag < 'n') OR b.tag = 'dx'`)} mo JOIN wb ON wb.block = mo.block
     GROUP BY mo.tag)`,
  // Each month's meetings and those of the months above it (`before`); none when a start is not a date.
  `mn AS (SELECT tag, n, (sum(n) OVER (ORDER BY tag DESC) - n)::bigint AS before FROM mc
          WHERE tag <> 'dx' AND NOT EXISTS (SELECT 1 FROM mc WHERE tag = 'dx' AND n > 0))`,
  `mt AS (SELECT tag, before FROM mn WHERE before <= ${offset} AND before + n > ${offset})`,
  `ms AS (SELECT coalesce((SELECT substr(tag, 2, 4) || '-' || substr(tag, 6, 2) || '-:' FROM mt),
                          (SELECT max(m.started_at COLLATE "C") FROM meetings m) || chr(1)) AS upper,
                 ${offset} - coalesce((SELECT before FROM mt), 0) AS skip)`,
];

/** The total of monthSkip's tags, from its `wb`. */
const MERGED_TOTAL = '(SELECT coalesce(sum(bit_count(wb.bits)), 0)::int FROM wb)';

/**
 * After monthSkip's: `ml` (`lower`), the start of the month holding the page's last meeting (`offset` + `take` - 1), so
 * that the meetings from `lower` up to `upper` hold the whole page; '' (every start) when that is past the last meeting
 * or a start is not a date (as `upper` is then the top), and `upper` itself (none) when the offset is past them all.
 */
const monthsDown = (offset: string, take: string): string[] => [
  `mb AS (SELECT tag FROM mn WHERE before <= ${offset} + ${take} - 1 AND before + n > ${offset} + ${take} - 1)`,
  `ml AS (SELECT coalesce((SELECT substr(tag, 2, 4) || '-' || substr(tag, 6, 2) || '-' FROM mb),
                          CASE WHEN EXISTS (SELECT 1 FROM mt) OR NOT EXISTS (SELECT 1 FROM mn) THEN '' ELSE (SELECT upper FROM ms) END) AS lower)`,
];

/**
 * list_meetings from meeting_tags: the rarest single-tag filter's key range (within the dates) walked newest
 * first, the other tags joined on (started_at, meeting_id) (a merge of key ranges, or a probe of each), the
 * title checked on the meeting row; the total counted from the same, index-only without a title (or, for a participant
 * fragment's gram, from the bits: `cover`, a range's).
 */
async function listByTags(q: Queryable, t: TagFilter, page: Page, cover?: DateTerm): Promise<{ meetings: MeetingListItem[]; total: number | null } | undefined> {
  if (t.none) return { meetings: [], total: 0 };
  const named = await manyNamesNear(q, t, page);
  if (named) return named;
  // A participant fragment's few words whose meetings are few, when the total is not counted from the bits (dates, a
  // title): their meetings drive too, rather than every meeting of the other filters probed to count them (`person97`,
  // 11 words and 1,113 meetings at 100k, up to a day of 2024: 40,000 meetings probed, 346-655 ms; `ar`, 2 words and
  // 58,000 meetings, from 1 January 2026: 17,000 probed, 154 ms). Their meetings (the words' counts summed) at most
  // FEW_WORD_MEETINGS, or fewer than 16 times the range's (each probed costs ~16 times as much), counted in one statement.
  // (Not with a folder, series, title grams or names to drive: the list is walked from those, each meeting probed.)
  const { participant, range: dates } = t;
  const words = participant?.group;
  const otherDriver = t.groups.some((g) => g.length === 1 || g.every((tag) => tag.startsWith('g') || tag.startsWith('h')));
  let wordsDrive = false;
  if (words && words.length > 1 && words.every((tag) => tag.startsWith('p')) && page.offset < DEEP_PAGE && !countedByBits(t) && !otherDriver) {
    const values: unknown[] = [words];
    const range = startedWithin(dates, (value) => `$${values.push(value)}`, 'm.started_at COLLATE "C"');
    const dated = range.length ? `(SELECT count(*) FROM (SELECT 1 FROM meetings m WHERE ${range.join(' AND ')} LIMIT (SELECT w.n / 16 + 1 FROM w)) x)::int` : '0';
    const r = await one<{ n: number; dated: number }>(
      q,
      `WITH w AS MATERIALIZED (SELECT coalesce(sum(c.n), 0)::int AS n FROM meeting_tag_counts c WHERE c.tag = ANY($1::text[])) SELECT w.n, ${dated} AS dated FROM w`,
      values,
    );
    wordsDrive = r!.n <= FEW_WORD_MEETINGS || r!.dated * 16 > r!.n;
  }
  // A group drives when it is one tag, title grams (one a spelling of the fragment: `é` composed or not), the names
  // and e-mails holding a participant fragment across words (`Ines Kowalski`: 38 names, 7,381 meetings), or, from
  // DEEP_PAGE on, the words holding one: otherwise the meetings are walked newest first, each probed, down to the page
  // (`om`, two words in 46,000 of 100k meetings: 25 ms at offset 0 either way, 54 against 30 at 3,000, 214 against 43
  // at 20,000).
  const kindOf = (g: string[]) =>
    g.length === 1
      ? 'tag'
      : g.every((tag) => tag.startsWith('g'))
        ? 'grams'
        : g.every((tag) => tag.startsWith('h')) ||
            (g.every((tag) => tag.startsWith('p')) && (page.offset >= DEEP_PAGE || (t.groups.length === 1 && countedByBits(t)))) ||
            (wordsDrive && g === words)
          ? 'handles'
          : undefined;
  const drivers = t.groups.filter((g) => kindOf(g) !== undefined);
  if (drivers.length === 0) return undefined;
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const range: string[] = [];
  const inRange = (alias: string) => range.push(...startedWithin(t.range, p, `${alias}.started_at`));
  // A participant fragment's names (several tags) with other filters all counted as bits (a folder, a series, a
  // participant's words): the names drive, walked by month from every filter's bits ANDed (namesByMonth, below).
  let namesWalk = countedByBits(t) ? drivers.find((g) => g.length > 1 && g.every((tag) => tag.startsWith('h'))) : undefined;
  let driverGroup = namesWalk ?? drivers[0]!;
  // Whether the driver is a group of tags whose rows are fewer than DRIVER_PROBE, the others' at least as many.
  let fewGroupRows = false;
  /** The driver's rows within the dates, when counted and fewer than DRIVER_PROBE. */
  let driverRows: number | undefined;
  // Beside a tag of at most NAMES_WALK meetings (a series: 102 at 100k), that tag drives instead, each of its meetings'
  // participants probed for the fragment (namesProbed: at most NAMES_WALK probes), the total still from the bits. Walked
  // by month, the names' meetings were gathered from every month down to the page's end: `12` (a number in 1,111 names)
  // + a series, 26,740 rows, ~45-70 ms. (Beside a folder of 589, `Ines Kowalski`'s names walked by month cost less,
  // 7.8 ms against 10: ~15 µs a probe.)
  let namesProbed: string[] | undefined;
  const singles = drivers.filter((g) => g.length === 1);
  if (namesWalk !== undefined && namesWalk === t.participant?.group && singles.length > 0) {
    const sizes = await groupRows(q, singles, t.range);
    const least = Math.min(...sizes);
    if (least <= NAMES_WALK) {
      driverGroup = singles[sizes.indexOf(least)]!;
      driverRows = least;
      namesProbed = namesWalk;
      namesWalk = undefined;
    }
  }
  if (drivers.length > 1 && namesWalk === undefined && namesProbed === undefined) {
    const sizes = await groupRows(q, drivers, t.range);
    const least = Math.min(...sizes);
    driverGroup = drivers[sizes.indexOf(least)]!;
    fewGroupRows = driverGroup.length > 1 && least < DRIVER_PROBE;
    if (least < DRIVER_PROBE) driverRows = least;
  }
  const driver = driverGroup.length === 1 ? driverGroup[0]! : undefined;
  const grams = kindOf(driverGroup) === 'grams';
  // A participant fragment's few words and no other filter (from DEEP_PAGE on): their key ranges merged as the page is
  // walked, the total from their bits, rather than their meetings gathered first.
  const wordsAlone = driver === undefined && t.groups.length === 1 && driverGroup.every((tag) => tag.startsWith('p')) && countedByBits(t);
  // A title fragment's few words (at most MERGED_TITLE_WORDS) and no other filter: the same walk, from either end,
  // counted once from the merge when their meetings are not kept as bits (a word with digits or beyond ASCII), else from
  // their bits. Gathered and made distinct first, for the total and the page, `ing`'s 6 words (46,524 rows, 41,165
  // meetings) took 53 ms.
  // (Its words whose bits are made, TagFilter.made, are one more range of the walk, however many.)
  const madeWords = driverGroup.filter((tag) => t.made?.includes(tag));
  const dated = t.range.from !== undefined || t.range.to !== undefined;
  const fewTitleWords = grams && !t.title && driver === undefined && driverGroup.length - madeWords.length <= MERGED_TITLE_WORDS && !t.except?.length;
  const titleWordsAlone = fewTitleWords && !dated && t.groups.length === 1 && !t.probe;
  // The same words with other filters counted from the bits (a participant's or a folder's tags), or with a participant
  // fragment in too many names counted from its gram (gramsTotal), each meeting then probed: walked newest first, the
  // others joined (or each meeting probed) until the page's end. Gathered and made distinct first, then joined or probed
  // (twice), at 100k meetings `ing` + `kowalski` took 99 ms, `ing` + `person1` 690 (41,165 meetings probed).
  // With dates too: the words' ranges walked within them, the total from their calendar cover's bits ANDed in (dateTerm,
  // bitsTotal, gramsTotal). Gathered within the dates and each joined, twice: `ing` + `kowalski` in six months took ~22 ms.
  const walkable =
    fewTitleWords &&
    (t.groups.length > 1 || t.probe !== undefined) &&
    driverGroup.every(bitted(t.made)) &&
    ((t.probe !== undefined && t.gram !== undefined) || (dated ? bittedWithin(t) : countedByBits(t)));
  // (The cover read here when listMeetings did not, for a participant's gram: a round trip; none when too many tags.)
  const walkCover = walkable && dated ? (cover ?? (await dateTerm(q, t.range)) ?? undefined) : undefined;
  const titleWordsWalked = walkable && (!dated || walkCover !== undefined);
  /** The driver group's key ranges merged (tagsMerged) below `below` and within the dates, walking either way; the made words' one range. */
  const groupMerged = (below?: string): ((dir: 'DESC' | 'ASC') => string) => {
    const words = driverGroup.filter((tag) => !madeWords.includes(tag)).map(p);
    const many = madeWords.length > 0 ? p(madeWords) : undefined;
    const within = startedWithin(t.range, p, 'started_at');
    return (dir) => tagsMerged(tagTable(driverGroup[0]!), words, dir, below, many, within);
  };
  const driverParam = driver === undefined ? undefined : p(driver);
  const clauses = driver === undefined ? [] : [`t.tag = ${driverParam}`];
  // Common table expressions of the statement. A group of tags drives (the names of a participant across words): its
  // meetings once for the total and the page (each computed them: 8 of 22 ms for `Ines Kowalski`).
  const ctes: string[] = [];
  let source: string;
  let merged: ((dir: 'DESC' | 'ASC') => string) | undefined;
  let titleMerged: ((dir: 'DESC' | 'ASC') => string) | undefined;
  /** The walked words' bits (tagsOred), when counted from them (MERGED_TOTAL). */
  let wordsBits: string | undefined;
  let namesByMonth: { bits: string; named: string } | undefined;
  /** The dates bounding a group's rows as they are read (its key ranges start with the start). */
  const datedRows = () => startedWithin(t.range, p, 'd.started_at').map((c) => ` AND ${c}`).join('');
  /** `named`: the distinct meetings of the names or words `tags` (an array parameter), `within` bounding their starts (` AND` conditions on `d.started_at`). */
  const namedCte = (tags: string, within: string) =>
    `named AS MATERIALIZED (SELECT d.started_at, d.meeting_id FROM meeting_tags d WHERE d.tag = ANY(${tags}::text[])${within} GROUP BY d.started_at, d.meeting_id)`;
  if (driver !== undefined) source = `${tagTable(driver)} t`;
  else if (wordsAlone || (titleWordsAlone && driverGroup.every(bitted(t.made)))) {
    // A participant fragment's words alone, or a title fragment's few words of ASCII letters, kept as bits (migration
    // 0030) or made: merged as the page is walked (monthSkip), counted from their bits (MERGED_TOTAL). Counted from the
    // merge, `ing`'s 6 title words (46,524 rows, 41,165 meetings) took ~20 ms at 100k meetings, its whole list ~20
    // against ~2.
    wordsBits = oredOf(driverGroup, p);
    merged = groupMerged('(SELECT upper FROM ms)');
    source = `${merged('DESC')} t`;
  } else if (titleWordsWalked) {
    source = `${groupMerged()('DESC')} t`;
  } else if (titleWordsAlone) {
    titleMerged = groupMerged();
    source = `${titleMerged('DESC')} t`;
  } else if (grams && !t.title) {
    // Title words (or grams whose meetings all match): their meetings once for the total and the page, made distinct
    // by sorting them. Hashed, the table was sized for the rows the statistics expect, ~1,500 a tag whatever it holds
    // (meeting_grams' 200,000 words are sampled as 2,000): `#917`'s 111 words, one meeting each, took 6 MB and 35 ms.
    ctes.push(`named AS MATERIALIZED (SELECT DISTINCT ON (d.started_at, d.meeting_id) d.started_at, d.meeting_id
                                      FROM meeting_grams d WHERE d.tag = ANY(${p(driverGroup)}::text[])${datedRows()} ORDER BY d.started_at, d.meeting_id)`);
    source = 'named t';
  } else if (grams)
    source = `(SELECT d.started_at, d.meeting_id, bool_or(d.tag = ANY(${p(t.title?.sure === undefined ? [] : [t.title.sure])}::text[])) AS sure,
                  bool_or(d.tag = ANY(${p((t.title?.titled ?? []).map(gramTag))}::text[])) AS titled
             FROM meeting_grams d WHERE d.tag = ANY(${p(driverGroup)}::text[]) GROUP BY d.started_at, d.meeting_id) t`;
  else if (driverGroup === namesWalk) {
    // The names and e-mails holding a participant fragment across words, alone (at any offset, when manyNamesNear did
    // not walk a near page): only the months holding the page gathered (monthSkip, monthsDown), counted from their bits
    // (namesBits). All their meetings gathered and made distinct (hashed: ~2 ms for the table alone, sized for the rows
    // the statistics expect), ` k`'s 271 names and 42,942 meetings at offset 3,000 took 35-40 ms at 100k meetings, 3-4
    // now; `Ines Kowalski`'s first page (38 names, 7,381 meetings) 6.5 -> 3.2-3.6 ms, `Noor Silva`'s (5,682) 4.8-6.8
    // -> 2.4-2.6. (Merged as a participant's words are, 1-4 ms less on a repeated call, but a first call planned the
    // merge of every name: `ki `'s 437, 340-380 ms against ~110.)
    // With other filters counted as bits (a folder): the months' counts from every filter's bits ANDed, the gathered
    // names' meetings joined to the others' tags. The folder's meetings walked newest first and merged with the names'
    // rows, which were all read and sorted by start first (they come by tag): `Ines Kowalski` + the biggest folder (598
    // meetings) 7.8-9.4 -> 4.7-6.8 ms at 100k, `Noor Silva` + another 7.2-9.6 -> 5.6-5.9; where the page spans most
    // months (+ a small folder, 49), the same (~9: every filter's bits, ~3 ms, read either way for the total).
    const names = p(driverGroup);
    namesByMonth = {
      bits: t.groups.length === 1 ? namesBits(() => names, t.participant?.group === driverGroup ? t.participant.gram : undefined, p) : groupsAnded(t, p),
      named: namedCte(names, ' AND d.started_at >= (SELECT lower FROM ml) AND d.started_at < (SELECT upper FROM ms)'),
    };
    source = 'named t';
  } else {
    // The dates bound the group's rows as they are read (their key ranges start with the start): `am` (two words, the
    // e-mail domain of every meeting among them) in six months read all 132,036 rows of its words and made 100,000
    // meetings distinct before the dates kept 9,757 (160 ms).
    ctes.push(namedCte(p(driverGroup), datedRows()));
    source = 'named t';
  }
  inRange('t');
  clauses.push(...range);
  // A participant fragment in most names (`e`): each meeting the other filters keep is probed (`e` + `in`, 53,308 of
  // 100k meetings' grams: 1 s checking every title with ILIKE, then probing).
  if (t.probe) clauses.push(probedFor(t.probe, p, 't.meeting_id'));
  // The few meetings a participant fragment in most names fails.
  if (t.except?.length) clauses.push(`t.meeting_id <> ALL(${p(t.except)}::text[])`);
  const joins: string[] = [];
  // The dates bound every joined range too, not only the driver's: merged, a range is then read within the dates
  // (`design` with a folder and six months read all 16,068 of its grams to keep 161).
  const within = (alias: string) => range.map((c) => ` AND ${c.replace(/^t\./, `${alias}.`)}`).join('');
  let i = 0;
  for (const group of t.groups) {
    if (group === driverGroup) continue;
    const o = `o${i++}`;
    if (group.length === 1) {
      const on = `${o}.tag = ${p(group[0])} AND ${o}.started_at = t.started_at AND ${o}.meeting_id = t.meeting_id${within(o)}`;
      // Each of a group's few meetings probed in the tag's key (OFFSET 0: not planned as a join). Joined, the planner,
      // expecting a group's statistics (~1,500 rows a title word), hashed the tag's rows: `#917` + "Kim" up to November
      // 2023, 43 meetings, hashed Kim's 13,000 twice (the total and the page), 6.9 ms against 2.3.
      joins.push(fewGroupRows ? `CROSS JOIN LATERAL (SELECT 1 FROM ${tagTable(group[0]!)} ${o} WHERE ${on} OFFSET 0) ${o}` : `JOIN ${tagTable(group[0]!)} ${o} ON ${on}`);
    } else if (group === namesProbed) {
      clauses.push(probedFor(t.participant!.patterns, p, 't.meeting_id'));
    } else if (group !== t.rareWords?.group) {
      // A group of few tags probed for each of a driver's few rows (a value, not EXISTS): as a semi-join the planner hashed
      // the group's rows, expecting ~1,500 a tag (`ing`'s 6 title words, 46,524 rows, 21 ms, for a series' 102 meetings).
      // Not many tags (a participant fragment's ~80 words: a lookup each, for each row, 9.6 -> 40 ms).
      const held = `SELECT 1 FROM ${tagTable(group[0]!)} ${o} WHERE ${o}.tag = ANY(${p(group)}::text[]) AND ${o}.started_at = t.started_at AND ${o}.meeting_id = t.meeting_id${within(o)}`;
      clauses.push(driverRows !== undefined && group.length <= PROBED_GROUP_TAGS ? `(${held} LIMIT 1) IS NOT NULL` : `EXISTS (${held})`);
    }
  }
  let from = `FROM ${source} ${joins.join(' ')} WHERE ${clauses.length ? clauses.join(' AND ') : 'true'}`;
  /** Whether `from` is the candidates checked once (a CTE) for the title: their probes too. */
  let checkedOnce = false;
  /** Whether each meeting's title is checked (a plain ILIKE): the meetings kept then joined once for the total and the page. */
  let titleChecked = false;
  // A title fragment's many rare words when another filter drives: its title checked on each meeting, as any title
  // fragment the tags do not hold, not each of its words looked up (`631`, 111 words, and "Ines Chen 80": 111 key
  // lookups for each of the name's meetings, 7.6 ms, against 2.5).
  const title = t.title ?? (t.rareWords && t.rareWords.group !== driverGroup ? { forms: t.rareWords.forms, id: t.rareWords.id } : undefined);
  if (title) {
    const like = titleLike(title.forms, title.id, p);
    const { sure, titled, pairs } = title;
    if (sure === undefined && titled === undefined && !grams && !pairs) {
      // The meetings kept then joined once (below), for the total and the page: the planner makes the check a semi-join
      // over the titles pg_trgm proposes, done twice, and, matching the meeting alone, looked each up in the driving tag's
      // key by meeting, reading its every row (`review #2` + `kowalski`: 1,499 titles, 42,942 rows each, ~80 ms a time at
      // 100k meetings): the start is compared too, the key read by start and meeting. A fragment in many titles (`many`) beside one tag of
      // fewer than DRIVER_PROBE rows (counted first, within the dates: a round trip): each title checked as a value, its
      // row looked up by key, ~3-6 µs a meeting (`rev` + a folder's ~860 meetings in six months: 25 -> 9.5 ms, where
      // pg_trgm proposes ~13,000 titles; not for the others, ` #20982` + a folder of ~600 3.3 -> 6.6, where it proposes few).
      if (title.many === true && driver !== undefined && driverRows === undefined) {
        const [n] = await groupRows(q, [[driver]], t.range);
        if (n! < DRIVER_PROBE) driverRows = n;
      }
      titleChecked = true;
      clauses.push(
        title.many === true && driverRows !== undefined
          ? `(SELECT ${like} FROM meetings m WHERE m.id = t.meeting_id) IS TRUE`
          : `EXISTS (SELECT 1 FROM meetings m WHERE m.id = t.meeting_id AND m.started_at = t.started_at AND (${like}))`,
      );
      from = `FROM ${source} ${joins.join(' ')} WHERE ${clauses.join(' AND ')}`;
    } else {
      // Title grams beyond one tag (`é` composed or not), or a fragment's pairs: the meetings that the other filters
      // keep, then those of them that match, each computed once (the total and the page read them). Those holding the
      // sure gram, or a titled one that their id lacks, match as they are; the others' titles are checked one by one
      // (as a value: EXISTS was planned as a semi-join reading every title, 170 ms at 100k).
      const holds = (tags: string[], column: string) =>
        grams
          ? `t.${column}`
          : `EXISTS (SELECT 1 FROM meeting_grams s WHERE s.tag = ANY(${p(tags)}::text[]) AND s.started_at = t.started_at AND s.meeting_id = t.meeting_id)`;
      const matched = [
        ...(sure === undefined ? [] : [holds([sure], 'sure')]),
        ...(titled === undefined ? [] : [`(${holds(titled.map(gramTag), 'titled')} AND ${titled.map((l) => `strpos(lower(t.meeting_id), ${p(l)}) = 0`).join(' AND ')})`]),
      ];
      ctes.push(
        `kept AS MATERIALIZED (SELECT t.started_at, t.meeting_id, ${matched.length > 0 ? matched.join(' OR ') : 'false'} AS sure ${from})`,
        `candidates AS MATERIALIZED (SELECT t.started_at, t.meeting_id FROM kept t WHERE t.sure OR (SELECT ${like} FROM meetings m WHERE m.id = t.meeting_id) IS TRUE)`,
      );
      from = 'FROM candidates t WHERE true';
      checkedOnce = true;
    }
  }
  // One tag alone (a participant word, a series, a title gram; no dates): its total is the sum of its counted
  // deltas (meeting_tag_counts, migration 0008), and pages past the middle are walked from the oldest end, as
  // listMeetings does with a cheap total. One tag driving with other groups of tags: counted from their bits. Not when
  // the driver's meetings are materialized for the page anyway (title words; a group with other filters). A participant
  // fragment's words alone are walked as one tag is, merged (tagsMerged), newest first from the month of the page
  // (monthSkip), and counted from their bits; a fragment's names alone likewise (namesByMonth).
  const tagAlone = driver !== undefined && joins.length === 0 && clauses.length === 1 && ctes.length === 0;
  // A title's words some of whose bits would be made (madeBeside) beside a driver of few rows: those rows counted, each
  // title checked, rather than the words' bits made and read (`eng` + a series of 102 meetings: 4.3 -> 7.0 ms at 100k).
  const fewBesideTitle = title !== undefined && t.made !== undefined && driverRows !== undefined;
  const counted =
    wordsBits !== undefined || namesByMonth !== undefined
      ? MERGED_TOTAL
      : titleMerged !== undefined
        ? '(SELECT n FROM tw)'
        : tagAlone || ctes.length > 0 || fewBesideTitle
          ? undefined
          : (bitsTotal(t, p, titleWordsWalked ? walkCover : undefined) ?? gramsTotal(t, p, cover));
  // The few meetings of a driver with others joined, counted by their rows: joined once (a CTE), for the total and the
  // page, rather than twice: `design` + a folder + six months + `kowalski`, the folder's 909 rows in the dates merged
  // with the title word's and each probed in the participant's, twice, 1.5 ms each at 100k meetings. (The page alone,
  // walked newest first, stops at its end; its sort read every match here: the join was in the start's order alone.)
  // Likewise the gathered meetings (`named`) of which each is probed for a participant fragment in too many names: the
  // page sorted them all anyway, each probed again (`es P` + `m ` from 2025, ~12 µs a probe: 28.6 -> 15.8 ms at 100k;
  // `ing` + `m ` from 2025, 327 -> 182: with a title and dates the fragment's gram is not read, so the title's words are
  // not walked, below).
  const probedTwice = t.probe !== undefined && ctes.length > 0 && !checkedOnce;
  if (counted === undefined && !tagAlone && (probedTwice || titleChecked || (ctes.length === 0 && driverRows !== undefined && (joins.length > 0 || clauses.length > 1)))) {
    ctes.push(`joined AS MATERIALIZED (SELECT t.started_at, t.meeting_id ${from})`);
    from = 'FROM joined t WHERE true';
  }
  const walked = tagAlone ? () => tagRange(tagTable(driver), driverParam!) : titleMerged;
  const n = params.length;
  const [limit, offset] = [`$${n + 1}::bigint`, `$${n + 2}::bigint`];
  if (wordsBits !== undefined) ctes.push(...monthSkip(wordsBits, offset));
  if (namesByMonth !== undefined) ctes.push(...monthSkip(namesByMonth.bits, offset), ...monthsDown(offset, limit), namesByMonth.named);
  // Counted once (a subquery in the total was computed again where the page reads the total: 2 x 23 ms for `ing`).
  if (titleMerged !== undefined) ctes.push(`tw AS MATERIALIZED (SELECT count(*)::int AS n FROM ${titleMerged('DESC')} x)`);
  const newest = `SELECT t.meeting_id AS id ${from} ORDER BY t.started_at DESC, t.meeting_id COLLATE "C" DESC LIMIT ${limit} OFFSET ${offset}`;
  // Past DEEP_PAGE, the walk skips by start alone (keyedWalk); nearer, the plain statement plans faster (~0.5 ms).
  const pageSql = tagAlone && page.offset < DEEP_PAGE
    ? `(SELECT t.meeting_id AS id ${from} AND ${offset} * 2 <= c.total ORDER BY t.started_at DESC, t.meeting_id COLLATE "C" DESC LIMIT ${limit} OFFSET ${offset})
       UNION ALL
       (SELECT r.id FROM (SELECT t.meeting_id AS id ${from} AND ${offset} * 2 > c.total ORDER BY t.started_at ASC, t.meeting_id COLLATE "C" ASC
                          LIMIT ${limit} OFFSET greatest(c.total - ${offset} - ${limit}, 0)) r
        LIMIT greatest(least(${limit}, c.total - ${offset}), 0))`
    : merged !== undefined
    ? keyedWalk(merged, `${offset} < c.total`, '(SELECT skip FROM ms)', limit, 'DESC')
    : namesByMonth !== undefined
    ? `SELECT t.meeting_id AS id ${from} ORDER BY t.started_at DESC, t.meeting_id COLLATE "C" DESC LIMIT ${limit} OFFSET (SELECT skip FROM ms)`
    : walked !== undefined
    ? `(${keyedWalk(walked, `${offset} * 2 <= c.total`, offset, limit, 'DESC')})
       UNION ALL
       (SELECT r.id FROM (${keyedWalk(walked, `${offset} * 2 > c.total`, `greatest(c.total - ${offset} - ${limit}, 0)`, limit, 'ASC')}) r
        LIMIT greatest(least(${limit}, c.total - ${offset}), 0))`
    : newest;
  const totalSql = tagAlone
    ? `SELECT coalesce(sum(n), 0)::int AS total FROM meeting_tag_counts WHERE tag = ${driverParam}`
    : counted !== undefined
      ? `SELECT ${counted} AS total`
      : `SELECT count(*)::int AS total ${from}`;
  // Counted from the bits, the page is walked newest first through the driver's key range, the other tags joined: with
  // merge plans (no hash, no parallel workers). Expecting one row from a join of two tags' ranges (their selectivities
  // multiplied), the planner hashed `e`'s 91,577 title grams and the 42,942 meetings of `kowalski` in parallel and sorted
  // the 39,238 it found for a page of 20 (22-39 ms), where a backward merge's incremental sort stops at 21 (0.3 ms).
  const planned = <T>(work: (c: Queryable) => Promise<T>): Promise<T> => (counted !== undefined && wordsBits === undefined ? withMergePlans(q, work) : work(q));
  const text = `${ctes.length > 0 ? `WITH ${ctes.join(',\n')} ` : ''}SELECT i.*, c.total FROM (${totalSql}) c
       LEFT JOIN LATERAL (${pageOfMeetingsByKey(pageSql)}) i ON true
       ORDER BY i.started_at COLLATE "C" DESC, i.id COLLATE "C" DESC`;
  const values = [...params, page.limit, page.offset];
  // One tag's key range walked (its total counted apart), or a participant fragment's words' ranges merged (their total
  // from their bits): read in key order whatever the values, so planned once for any (rowsGeneric, with the merge plans'
  // settings). Planned for its values at each call, such a statement cost 2-10 times as much at 100k meetings, mostly
  // its planning (`kowalski` at offset 20,000: 5.7 -> 1.9 ms; `om` at 20,000, two words merged: 8.2 -> 1.5; a folder's
  // first page 1.1 -> 0.5). A title fragment's words walked with the others joined likewise (`ing` + `person1` 9.1 -> 7.4,
  // + `kowalski` 5.2 -> 4.3: ~3 ms of planning).
  const generic = walked !== undefined || merged !== undefined || namesByMonth !== undefined || titleWordsWalked ? genericPoolOf(q) : undefined;
  const found = generic
    ? await rowsGeneric<MeetingListItem & { total: number | null }>(generic, text, values)
    : await planned((c) => rowsPlanned<MeetingListItem & { total: number | null }>(c, text, values));
  const total = found[0]!.total;
  return { meetings: found.filter((r) => r.id !== null).map(({ total: _, ...item }) => item), total };
}

/** A participant fragment's names counted from their bits and walked by probing when they hold at least 1 meeting in this many. */
const DENSE_NAMES = 8;

/** Meetings probed at most (expected) walking to the page's end. */
const NAMES_WALK = 500;

/**
 * A participant fragment in many names (more than MAX_PARTICIPANT_WORDS) and no other filter, on a near page: its
 * total from the names' bits, its page the newest meetings walked, each one's participants probed; when the names hold
 * at least one meeting in DENSE_NAMES and the walk to the page's end is expected within NAMES_WALK meetings (the sum of
 * the names' meetings, from meeting_tag_counts, bounds how many they hold: checked first; or their gram's meetings, when
 * compileTags read it, exactly). Instead of their meetings
 * gathered and made distinct: `4@e` (200 names, 33,682 of 100k meetings) 20.3 -> 14.6 ms, `r ` (413 names, 58,277)
 * 39.9 -> 26.1, `erg ` 22.5 -> 14.5. The total and the page in one statement: as three (the total apart) they took
 * 8.9 and 17.4, from two snapshots. Undefined otherwise (the check costs `Ines Kowalski`, 38 names and 7,381 meetings,
 * 4.2 -> 4.6).
 */
async function manyNamesNear(q: Queryable, t: TagFilter, page: Page): Promise<{ meetings: MeetingListItem[]; total: number } | undefined> {
  const group = t.participant?.group;
  if (!group || t.groups.length !== 1 || t.groups[0] !== group || group.length <= MAX_PARTICIPANT_WORDS || !group.every((tag) => tag.startsWith('h'))) return undefined;
  if (!countedByBits(t) || page.offset >= DEEP_PAGE) return undefined;
  // Too few, or a walk too long, even were the names' meetings all distinct: not counted.
  const walks = (held: number, all: number) => held * DENSE_NAMES >= all && (page.offset + page.limit) * all <= NAMES_WALK * held;
  // The meetings the names hold, exactly, when their gram was read (as the statement below counts them from the bits):
  // no round trip for their bound (`Ines Kowalski`: 0.4-0.6 ms at 100k meetings, for a walk not taken).
  const most =
    t.participant!.meetings ??
    (await one<{ held: number; all: number }>(
      q,
      `SELECT (SELECT coalesce(sum(c.n), 0) FROM meeting_tag_counts c WHERE c.tag = ANY($1::text[]))::float8 AS held, ${MEETINGS}::float8 AS all`,
      [group],
    ))!;
  if (!walks(most.held, most.all)) return undefined;
  // One group: its tags' blocks ORed (bitsTotal's join to the groups' numbers was planned 3x slower: 17.5 ms for `4@e`),
  // or the blocks of the fragment's gram, which hold the same meetings (`10`, 278 names: 51 -> ~3 ms).
  // The total and the page in one statement (one snapshot); the page only when the walk to it is short after all.
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const [limit, offset] = [p(page.limit), p(page.offset)];
  const bits = namesBits(() => p(group), t.participant!.gram, p);
  const ids = `SELECT m.id, m.started_at FROM meetings m WHERE c.walks AND ${probedFor(t.participant!.patterns, p)} ${NEWEST_FIRST} LIMIT ${limit} OFFSET ${offset}`;
  const found = await rows<MeetingListItem & { total: number; walks: boolean }>(
    q,
    `WITH c AS MATERIALIZED (
       SELECT x.total, x.total * ${DENSE_NAMES} >= a.n AND (${offset}::bigint + ${limit}::bigint) * a.n <= ${NAMES_WALK} * x.total AS walks
       FROM (SELECT coalesce(sum(bit_count(z.bits)), 0)::int AS total FROM ${bits} z) x, (SELECT ${MEETINGS} AS n) a)
     SELECT i.*, c.total, c.walks FROM c LEFT JOIN LATERAL (${pageOfMeetingsByKey(ids)}) i ON true
     ORDER BY i.started_at COLLATE "C" DESC, i.id COLLATE "C" DESC`,
    params,
  );
  if (!found[0]!.walks) return undefined;
  return { meetings: found.filter((r) => r.id !== null).map(({ total: _, walks: __, ...item }) => item), total: found[0]!.total };
}

/**
 * list_meetings. `exceptions: false`, `grams: false`: a participant fragment in too many names matched without the
 * meetings it fails or its gram (tests compare the ways); `gramRange`: with dates, the range's meetings from which its
 * gram counts it (GRAM_RANGE_MEETINGS).
 */
export async function listMeetings(
  q: Queryable,
  filter: MeetingFilter,
  page: Page,
  options: { exceptions?: boolean; grams?: boolean; gramRange?: number } = {},
): Promise<{ meetings: MeetingListItem[]; pagination: Pagination }> {
  // A folder, series or participant word: from meeting_tags; a title fragment of 1-2 characters, or one inside a few
  // title words: from meeting_grams. A participant fragment across words (`Sam Berg 297`): the tags of the names and
  // e-mails that hold it. Anything else (dates alone, a title fragment across words): the meetings themselves below.
  const dated = filter.from !== undefined || filter.to !== undefined;
  const tagged =
    filter.participant || filter.seriesId !== undefined || filter.folderPath !== undefined || filter.query
      ? await compileTags(q, filter, {
          probeMany: true,
          counted: page.offset < DEEP_PAGE && !dated,
          gramTotal: !dated,
          exceptions: options.exceptions,
          grams: options.grams,
          ...(page.offset < DEEP_PAGE && !filter.query && dated && { gramRange: options.gramRange ?? GRAM_RANGE_MEETINGS }),
        })
      : undefined;
  // A participant fragment's gram past its bounds (too many strays, or their meetings), or with a range of too many
  // tags: listed again without it.
  const again = () => listMeetings(q, filter, page, { ...options, grams: false });
  // With dates, a gram counts in their cover's bits.
  const dates = tagged?.gram && dated ? await dateTerm(q, tagged.range) : undefined;
  if (dates === null) return again();
  const byTags = tagged && (await listByTags(q, tagged, page, dates));
  if (byTags?.total === null) return again();
  if (byTags) return { meetings: byTags.meetings, pagination: pagination(page, byTags.meetings.length, byTags.total) };
  // A participant fragment in most names: the other filters, less the few meetings it fails (their count taken from the total).
  const except = tagged?.except;
  const compiled = await compileMeetingFilter(q, except ? { ...filter, participant: undefined } : filter, 0, true);
  const { where, params } = compiled;
  const n = params.length;
  const [limit, offset] = [`$${n + 1}::bigint`, `$${n + 2}::bigint`];
  const counting: unknown[] = [];
  const countParam = (value: unknown) => `$${n + 2 + counting.push(value)}`;
  const left = except?.length ? countParam(except) : undefined;
  const ids = `SELECT m.id, m.started_at FROM meetings m ${where}${left ? ` ${where ? 'AND' : 'WHERE'} m.id <> ALL(${left}::text[])` : ''}`;
  // When the total is a cheap lookup (no filter, or a folder subtree alone), pages past the middle are
  // walked from the oldest end (offset total - offset - limit, re-sorted): an offset skips index entries
  // one by one (offset 99,900 of 100k: 22 ms; from the other end, 100 entries). Only one branch runs: the
  // other's condition on the total is a one-time filter. A last page shorter than the limit keeps the
  // oldest (total - offset) rows; the inner LIMIT stays the parameter, so the planner sizes the page
  // right (a LIMIT computed from the total is guessed at 10% of the table, which costed the statement
  // into JIT compilation: 300 ms). With other filters the total is a count and the walk stays one-way
  // (measured: the two branches tripled the title-fragment list, 12.5 -> 31 ms).
  // The total from a participant fragment's gram is as cheap (`person1` at offset 3,000: its 222,721 participants' rows
  // read to count it, 193 ms, where its gram's bits take ~1); from DEEP_PAGE on (nearer, the two branches cost more
  // than the walk they would save: `person1` at offset 0, 5.5 -> 8.7 ms).
  const byGram = gramsTotal(tagged, countParam, dates);
  const counted = byGram ?? bitsTotal(tagged, countParam) ?? totalSql(compiled, countParam);
  const cheapTotal = where === '' || compiled.folderOnly !== undefined || (byGram !== undefined && page.offset >= DEEP_PAGE);
  const and = where || left ? 'AND' : 'WHERE';
  const pageSql = cheapTotal
    ? pageOfMeetingsByKey(
        `(${ids} ${and} ${offset} * 2 <= t.total ${NEWEST_FIRST} LIMIT ${limit} OFFSET ${offset})
         UNION ALL
         (SELECT r.id, r.started_at FROM (${ids} ${and} ${offset} * 2 > t.total ${OLDEST_FIRST} LIMIT ${limit} OFFSET greatest(t.total - ${offset} - ${limit}, 0)) r
          LIMIT greatest(least(${limit}, t.total - ${offset}), 0))`,
      )
    : pageOfMeetings(`${ids} ${NEWEST_FIRST} LIMIT $${n + 1} OFFSET $${n + 2}`);
  // The page and the total in one statement: a row per item (each carrying the total), or one row of nulls but the total.
  const total = left ? `(${counted} - (SELECT count(*)::int FROM meetings m ${where} ${where ? 'AND' : 'WHERE'} m.id = ANY(${left}::text[])))` : counted;
  // The total computed once (OFFSET 0): a subquery pulled up was computed again in each branch of the page reading it.
  const text = `SELECT i.*, t.total FROM (SELECT ${total} AS total OFFSET 0) t
     LEFT JOIN LATERAL (${pageSql}) i ON true
     ORDER BY i.started_at COLLATE "C" DESC, i.id COLLATE "C" DESC`;
  const values = [...params, page.limit, page.offset, ...counting];
  // Planned once for any values (rowsGeneric, with the merge plans' settings) but with a title fragment: the meetings
  // walked newest first (or counted) under conditions on their own columns, whose plan holds whatever the dates, the
  // participant's exceptions or probes; planned for its values at each call, the planning cost as much as the rest at
  // 100k meetings (the first page 1.9 -> 1.1 ms a call, a day 1.2 -> 0.6, `am` less the meetings it fails 2.2 -> 1.4,
  // `person1` probed 6.8 -> 5.0). A title fragment's plan depends on it (`g Pr`: 23 -> 61 ms planned once).
  const generic = filter.query ? undefined : genericPoolOf(q);
  const found = await rowsGenericOr<MeetingListItem & { total: number | null }>(generic, q, text, values);
  if (found[0]!.total === null) return again();
  const meetings = found.filter((r) => r.id !== null).map(({ total: _, ...item }) => item);
  return { meetings, pagination: pagination(page, meetings.length, found[0]!.total) };
}

interface MeetingRowOut {
  id: string;
  title: string;
  started_at: string;
  ended_at: string | null;
  folder_path: string | null;
  series_id: string | null;
  series_title: string | null;
  series_cadence: string | null;
  note: string;
  speakers: string[] | null;
  speaker_context: string | null;
  created_at: string;
  updated_at: string;
  summaries: Summary[];
  participants: Participant[];
  action_items: ActionItem[];
}

/**
 * A meeting with its children (summaries, participants, action items) in one statement, the
 * children as JSON arrays built where they are (one round trip instead of four).
 */
const MEETING_RECORD_SQL = `SELECT m.id, m.title, m.started_at, m.ended_at, f.path AS folder_path, m.series_id,
    s.title AS series_title, s.cadence AS series_cadence, m.note, m.speakers, m.speaker_context, m.created_at, m.updated_at,
    coalesce((SELECT json_agg(json_build_object('id', x.id, 'title', x.title, 'content', x.content, 'created_at', x.created_at, 'updated_at', x.updated_at)
                              ORDER BY x.position, x.created_at COLLATE "C", x.id COLLATE "C") FROM summaries x WHERE x.meeting_id = m.id), '[]') AS summaries,
    coalesce((SELECT json_agg(json_build_object('name', x.name, 'email', x.email, 'role', x.role)
                              ORDER BY x.position, x.id COLLATE "C") FROM participants x WHERE x.meeting_id = m.id), '[]') AS participants,
    coalesce((SELECT json_agg(json_build_object('id', x.id, 'text', x.text, 'assignee', x.assignee, 'due_date', x.due_date, 'done', x.done)
                              ORDER BY x.position, x.created_at COLLATE "C", x.id COLLATE "C") FROM action_items x WHERE x.meeting_id = m.id), '[]') AS action_items`;
const MEETING_RECORD_FROM = 'FROM meetings m LEFT JOIN folders f ON f.id = m.folder_id LEFT JOIN series s ON s.id = m.series_id WHERE m.id = $1';

function toMeetingRecord(row: MeetingRowOut): MeetingRecord {
  const record: MeetingRecord = {
    id: row.id,
    title: row.title,
    started_at: row.started_at,
    ended_at: row.ended_at,
    folder_path: row.folder_path,
    series: row.series_id ? { id: row.series_id, title: row.series_title ?? '', cadence: row.series_cadence } : null,
    note: row.note,
    summaries: row.summaries,
    participants: row.participants,
    action_items: row.action_items,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  if (row.speakers !== null) record.speakers = row.speakers;
  if (row.speaker_context !== null) record.speaker_context = row.speaker_context;
  return record;
}

export async function readMeetingRecord(q: Queryable, id: string): Promise<MeetingRecord> {
  const row = await one<MeetingRowOut>(q, `${MEETING_RECORD_SQL} ${MEETING_RECORD_FROM}`, [id]);
  if (!row) throw await meetingNotFound(q, id);
  return toMeetingRecord(row);
}

const IMPORT_FROM = `FROM recording_imports j JOIN meetings m ON m.id = j.meeting_id`;

export async function getImportForMeeting(q: Queryable, meetingId: string): Promise<RecordingImport | null> {
  const row = await one<ImportRow>(q, `SELECT ${IMPORT_COLUMNS} ${IMPORT_FROM} WHERE j.meeting_id = $1 ORDER BY j.created_at DESC LIMIT 1`, [meetingId]);
  return row ? toRecordingImport(row) : null;
}

export async function getImportOrThrow(q: Queryable, jobId: string): Promise<RecordingImport> {
  const row = await one<ImportRow>(q, `SELECT ${IMPORT_COLUMNS} ${IMPORT_FROM} WHERE j.id = $1`, [jobId]);
  if (!row) throw await notFound(q, 'job', jobId);
  return toRecordingImport(row);
}

/** get_meeting: the record, its transcript's facts, pending proposals and latest import, in one statement. */
export async function getMeetingOrThrow(q: Queryable, id: string): Promise<MeetingDetail> {
  const row = await one<MeetingRowOut & { transcript: TranscriptInfo | null; pending: number; recording_import: ImportRow | null }>(
    q,
    `${MEETING_RECORD_SQL},
       (SELECT row_to_json(t) FROM (SELECT id, language, word_count, timing FROM transcripts WHERE meeting_id = m.id) t) AS transcript,
       (SELECT count(*)::int FROM proposals WHERE meeting_id = m.id AND status = 'pending') AS pending,
       (SELECT row_to_json(r) FROM (SELECT ${IMPORT_COLUMNS} ${IMPORT_FROM} WHERE j.meeting_id = $1 ORDER BY j.created_at DESC LIMIT 1) r) AS recording_import
     ${MEETING_RECORD_FROM}`,
    [id],
  );
  if (!row) throw await meetingNotFound(q, id);
  const recordingImport = row.recording_import ? toRecordingImport(row.recording_import) : null;
  return {
    ...toMeetingRecord(row),
    transcript: row.transcript,
    pending_proposal_count: row.pending,
    processing_status: recordingImport?.processing_status ?? null,
    recording_import: recordingImport,
  };
}

export async function getSeriesRefOrThrow(q: Queryable, id: string): Promise<SeriesRef> {
  const row = await one<SeriesRef>(q, 'SELECT id, title, cadence FROM series WHERE id = $1', [id]);
  if (!row) throw await notFound(q, 'series', id);
  return row;
}

export async function seriesMeetings(q: Queryable, seriesId: string, page: Page): Promise<{ meetings: MeetingListItem[]; total: number }> {
  const meetings = await rows<MeetingListItem>(q, pageOfMeetings(`SELECT m.id, m.started_at FROM meetings m WHERE m.series_id = $1 ${NEWEST_FIRST} LIMIT $2 OFFSET $3`), [
    seriesId,
    page.limit,
    page.offset,
  ]);
  const total = (await one<{ n: number }>(q, 'SELECT count(*)::int AS n FROM meetings WHERE series_id = $1', [seriesId]))!.n;
  return { meetings, total };
}

export async function seriesHistoryOrThrow(q: Queryable, meetingId: string, page: Page) {
  const row = await one<{ series_id: string | null }>(q, 'SELECT series_id FROM meetings WHERE id = $1', [meetingId]);
  if (!row) throw await meetingNotFound(q, meetingId);
  if (row.series_id === null) return { meeting_id: meetingId, series: null, meetings: [], pagination: pagination(page, 0, 0) };
  const series = await getSeriesRefOrThrow(q, row.series_id);
  const { meetings, total } = await seriesMeetings(q, row.series_id, page);
  return { meeting_id: meetingId, series, meetings, pagination: pagination(page, meetings.length, total) };
}

// ---------------------------------------------------------------------------------------------
// Transcripts and export

type WordRow = { idx: number; text: string; start_ms: number | null; end_ms: number | null; speaker: string | null };
const tuple = (w: WordRow): WordTuple => [w.idx, w.text, w.start_ms, w.end_ms, w.speaker];

/** Every word of a transcript in order, read in keyset pages (bounded per round trip). */
export async function allTranscriptWords(q: Queryable, transcriptId: string): Promise<WordTuple[]> {
  const out: WordTuple[] = [];
  for (let from = 0; ; ) {
    const page = await rows<WordRow>(q, 'SELECT idx, text, start_ms, end_ms, speaker FROM transcript_words WHERE transcript_id = $1 AND idx >= $2 ORDER BY idx LIMIT 20000', [
      transcriptId,
      from,
    ]);
    for (const w of page) out.push(tuple(w));
    if (page.length < 20_000) return out;
    from = page.at(-1)!.idx + 1;
  }
}

export async function exportMeetingOrThrow(q: Queryable, id: string): Promise<MeetingExport> {
  const record = await readMeetingRecord(q, id);
  const transcripts = await rows<{ id: string; language: string | null; source: string; word_count: number; timing: 'measured' | 'estimated' | 'mixed' }>(
    q,
    'SELECT id, language, source, word_count, timing FROM transcripts WHERE meeting_id = $1',
    [id],
  );
  const out = [];
  for (const t of transcripts) out.push({ ...t, segments: toSegments(await allTranscriptWords(q, t.id)) });
  return { format: EXPORT_FORMAT, ...record, transcripts: out };
}

