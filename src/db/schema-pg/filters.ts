import { pgTable, text, bigint, integer, index, uniqueIndex, primaryKey, customType } from 'drizzle-orm/pg-core';
import { meetings } from './meetings.js';

/** Compared byte by byte: the order list_meetings pages in (COLLATE "C", as SQLite sorts text). */
const bytesText = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });
/** One bit a meeting of a block of 4,096 meeting numbers (bit i: the meeting numbered block * 4096 + i). */
const blockBits = customType<{ data: string }>({ dataType: () => 'bit(4096)' });

// The filters of list_meetings and search_transcripts answered from indexes, as SQLite's meeting_tags and
// search_fts tags (issue 19). A meeting's tags: `f<folder id>` for its folder and each ancestor (a subtree is
// one tag), `s<series id>`, `p<word>` for each lower-cased word of its participants' names and e-mails, and the
// UTC calendar day, month and year it started (`d20260517 m202605 y2026`; `dx` when started_at does not begin
// with a real date). Kept by triggers (migration 0007, by hand); `db copy` fills them once at the end; neither
// role may write them (syntheo db roles).

/**
 * Each lower-cased word of a participant name or e-mail, about once (no unique key and never removed, as
 * participant_handles): a `participant` fragment without a separator is matched against these few
 * thousand words, then read as their `p` tags.
 */
export const participantWords = pgTable(
  'participant_words',
  {
    word: bytesText('word').notNull(),
  },
  (t) => [
    // The trigger's "already there?" lookup.
    index('participant_words_word_idx').on(t.word),
    // The fragment, case-insensitively (pg_trgm); 1-2 characters scan the words.
    index('participant_words_trgm_idx').using('gin', t.word.op('gin_trgm_ops')),
  ],
);

/**
 * One row per tag of a meeting. list_meetings by folder, series or participant word walks one tag's key
 * range newest first (dates are a range inside it) and counts it from the key alone.
 */
export const meetingTags = pgTable(
  'meeting_tags',
  {
    tag: bytesText('tag').notNull(),
    startedAt: bytesText('started_at').notNull(),
    /** In the default collation, as meetings.id, so that joins on it use the meetings' and passages' indexes (newest first breaks ties with COLLATE "C"). */
    meetingId: text('meeting_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tag, t.startedAt, t.meetingId] }),
    // A meeting's tags, rewritten when its folder, series, start or participants change.
    index('meeting_tags_meeting_idx').on(t.meetingId),
  ],
);

/**
 * The title grams of list_meetings: one row per distinct character and pair of adjacent characters of a
 * meeting's lower-cased title and of its lower-cased id, as the tag `g<hex of the gram>` when it is all ASCII
 * (migration 0008), else `gu<hex of its UTF-8 bytes>` (0009); and each word of them as `gw<word>` (0012, see title_words). A `query` of 1-2 characters is the gram's key range walked newest first and counted from the key
 * alone, as a tag of meeting_tags is (pg_trgm cannot index fewer than 3 characters). Apart from meeting_tags so
 * that search_tags, which gives every passage its meeting's tags, does not get them (~60 a meeting).
 */
export const meetingGrams = pgTable(
  'meeting_grams',
  {
    tag: bytesText('tag').notNull(),
    startedAt: bytesText('started_at').notNull(),
    meetingId: text('meeting_id').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tag, t.startedAt, t.meetingId] }),
    // A meeting's grams, rewritten when its title, id or start change.
    index('meeting_grams_meeting_idx').on(t.meetingId),
  ],
);

/**
 * Each distinct lower-cased word of meetings' titles and ids (split at the participant words' separators; a word
 * longer than 64 characters as chunks of 64 every 32), about once (no unique key and never removed, as
 * participant_words; migration 0012): a `query` of 3+ characters without a separator is matched against these
 * words, then read as their `gw` title grams in meeting_grams.
 */
export const titleWords = pgTable(
  'title_words',
  {
    word: bytesText('word').notNull(),
  },
  (t) => [
    // The trigger's "already there?" lookup.
    index('title_words_word_idx').on(t.word),
    // The fragment, case-insensitively (pg_trgm).
    index('title_words_trgm_idx').using('gin', t.word.op('gin_trgm_ops')),
  ],
);

/**
 * Each distinct pair of a title's (or id's) adjacent words as `gv` and `gp` title grams (migration 0033), about once
 * (as title_words): a word's last 32 characters with the separators after it (`gv`: `planning `), and with the next
 * word too (`gp`: `incident review`; a next word not of ASCII letters as its first character and U+0001,
 * `planning #\u0001`). A `query` across two words (`ing `, `g #`, `Incident review`) is matched against these, then read
 * as their grams in meeting_grams.
 */
export const titlePairs = pgTable(
  'title_pairs',
  {
    tag: bytesText('tag').notNull(),
  },
  (t) => [
    // The trigger's "already there?" lookup.
    index('title_pairs_tag_idx').on(t.tag),
    // The fragment, case-insensitively (pg_trgm).
    index('title_pairs_trgm_idx').using('gin', t.tag.op('gin_trgm_ops')),
  ],
);

/**
 * How many meetings have each tag (meeting_tags) and each title gram (meeting_grams), as deltas summed on
 * reading (kept by statement triggers on both, migration 0008): the total of a list by one tag alone (a
 * participant word, a series, a title fragment) is a few rows instead of its whole key range counted (`e`:
 * 91,577 entries, `kowalski` 42,942). Writers only insert deltas, so none waits for another; a tag's deltas are
 * summed into one row by whoever adds the 33rd, when no other writer is doing it.
 */
export const meetingTagCounts = pgTable(
  'meeting_tag_counts',
  {
    tag: bytesText('tag').notNull(),
    n: bigint('n', { mode: 'number' }).notNull(),
  },
  (t) => [index('meeting_tag_counts_tag_idx').on(t.tag, t.n)],
);

/**
 * The tags of each search passage (its meeting's): search_transcripts with a filter is the merge of the
 * words' search_postings and the filters' tags on passage_id, index-only scans, counted without the heap.
 */
export const searchTags = pgTable(
  'search_tags',
  {
    tag: bytesText('tag').notNull(),
    passageId: bigint('passage_id', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tag, t.passageId] })],
);

/**
 * A version per meeting, raised by every write of its tags or of its passages (migration 0016), after its row is
 * locked. Locking the meeting row orders such writers in read committed, but a lock left by a writer that changed
 * nothing in the row is no conflict under repeatable read or serializable: a transaction whose snapshot is older
 * than another's passage or participant wrote the tags its snapshot saw, and a passage kept an old day or lacked a
 * participant's tags. Both now update this row, so the older one is refused (40001) and retries. Made on a
 * meeting's first write; neither role may write it.
 */
export const meetingTagVersions = pgTable('meeting_tag_versions', {
  meetingId: text('meeting_id')
    .primaryKey()
    .references(() => meetings.id, { onDelete: 'cascade' }),
  version: bigint('version', { mode: 'number' }).notNull().default(1),
});

/**
 * A number for each meeting that ever had a tag (migration 0019), from a sequence: its bit in meeting_tag_bits. Never
 * removed (no foreign key: the tags of a meeting being deleted are read against it after the meeting is gone) and never
 * reused; a meeting written again under its id (a load) keeps its number.
 */
export const meetingNumbers = pgTable(
  'meeting_numbers',
  {
    meetingId: text('meeting_id').primaryKey(),
    n: integer('n').notNull().generatedAlwaysAsIdentity(),
  },
  // A number's meeting (migration 0024): the meetings a participant fragment fails, read from the zeros of its gram's bits.
  (t) => [uniqueIndex('meeting_numbers_n_idx').on(t.n)],
);

/**
 * The meetings of each tag of meeting_tags as bits, a block of 4,096 meeting numbers a row (migration 0019, kept by
 * statement triggers on meeting_tags): list_meetings' total by participant words, folders, series and handles, ANDed
 * and ORed as its filters combine them, is bit_count() of a few rows a block instead of their key ranges merged and
 * made distinct (`om`, two words in 56,460 of 100k meetings: 66,446 entries, 23 ms). As XOR deltas: a writer inserts
 * the bits of the meetings whose tag it added or deleted (a (tag, meeting) pair is in meeting_tags once), so none waits
 * for another; a tag's block is its rows XORed, summed into one row by whoever adds the ninth, when no other writer is
 * doing it.
 */
export const meetingTagBits = pgTable(
  'meeting_tag_bits',
  {
    tag: bytesText('tag').notNull(),
    block: integer('block').notNull(),
    bits: blockBits('bits').notNull(),
  },
  (t) => [index('meeting_tag_bits_tag_block_idx').on(t.tag, t.block)],
);
