import { pgTable, text, integer, bigint, primaryKey, customType } from 'drizzle-orm/pg-core';

/** Compared byte by byte (equality only), as search_postings.lexeme and search_tags.tag. */
const bytesText = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });
/** One bit a passage of a block of 4,096 passage ids (bit i: passage id block * 4096 + i). */
const blockBits = customType<{ data: string }>({ dataType: () => 'bit(4096)' });
/** One byte a passage of a block of 4,096 passage ids (byte i: passage id block * 4096 + i). */
const blockBytes = customType<{ data: Buffer }>({ dataType: () => 'bytea' });

/**
 * A term's kind: `w` a lexeme of search_postings, `t` a tag of search_tags, `g` a gram of the participants' names and
 * e-mails (migration 0027: a passage's bit set when its meeting's names or e-mails hold it).
 */
export const BITMAP_KINDS = ['w', 't', 'g'] as const;

// The exact total of a search with a common word and a broad filter, counted from kept bitmaps (issue 19; migration
// 0013, by hand): the words' and the filters' passages of each block of 4,096 passage ids ANDed and counted
// (bit_count) instead of their postings merged (`the` with a participant: 346,673 postings and 166,000 tags, ~40 ms).
// Written only by functions of the migration (the worker's rounds, the triggers' marks, the repair): neither role may
// write them (syntheo db roles).

/**
 * The dense terms kept as bitmaps (a share of passage ids above 1/64, from search_word_counts and
 * meeting_tag_counts), each with its blocks built: the blocks below `built` have their bitmaps (a block where the
 * term is absent has no row), unless marked stale.
 */
export const searchBitmapTerms = pgTable(
  'search_bitmap_terms',
  {
    kind: text('kind', { enum: BITMAP_KINDS }).notNull(),
    term: bytesText('term').notNull(),
    built: integer('built').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.term] })],
);

/**
 * Every gram (migration 0023's `q` tags) of each name and e-mail of participant_handles, by the handle's tag (search_tags'):
 * what a round reads to build a block's bits of the kept grams from its passages' names' tags (migration 0027). A row is
 * written by a round for a handle it lacks and never changes (a tag is its handle's md5).
 */
export const searchHandleGrams = pgTable('search_handle_grams', {
  tag: bytesText('tag').primaryKey(),
  grams: text('grams').array().notNull(),
});

/** A kept term's passages in one block (block = passage_id >> 12). search_transcripts reads a term's blocks by this key. */
export const searchBitmaps = pgTable(
  'search_bitmaps',
  {
    kind: text('kind', { enum: BITMAP_KINDS }).notNull(),
    term: bytesText('term').notNull(),
    block: integer('block').notNull(),
    bits: blockBits('bits').notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.term, t.block] })],
);

/**
 * How often each passage of a block says a kept word (migration 0020): byte i is search_postings.n of passage id
 * block * 4096 + i, 255 for 255 or more, 0 where the passage does not say it. Kept with the word's bitmap row of the block
 * (triggers on search_bitmaps: whoever writes the bits), and read where that bitmap is (the block built and not stale): a search of one word ranks its
 * window by this count, which the window read from the bits otherwise looked up in the postings one passage at a time.
 */
export const searchCounts = pgTable(
  'search_counts',
  {
    term: bytesText('term').notNull(),
    block: integer('block').notNull(),
    counts: blockBytes('counts').notNull(),
  },
  (t) => [primaryKey({ columns: [t.term, t.block] })],
);

/** Built blocks whose postings or tags changed since they were built (statement triggers): counted from the rows until rebuilt. */
export const searchBitmapStale = pgTable('search_bitmap_stale', {
  block: integer('block').primaryKey(),
});

/**
 * The newest block's bits (migration 0031): the kept terms built as far as `block` (search_bitmap_terms.built = block)
 * have their bits of that block, and their words' counts (search_counts), for the passage ids below `upto`, which the
 * rounds raise as passages come (one row, or none before the first round).
 */
export const searchBitmapTail = pgTable('search_bitmap_tail', {
  block: integer('block').primaryKey(),
  upto: bigint('upto', { mode: 'number' }).notNull(),
});

/** Passages of the newest block below its `upto` whose postings or tags changed (statement triggers): its bits from the lowest taken away by the next round. */
export const searchBitmapTailStale = pgTable('search_bitmap_tail_stale', {
  passageId: bigint('passage_id', { mode: 'number' }).primaryKey(),
});
