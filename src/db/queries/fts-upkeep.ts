// Upkeep of the FTS5 indexes as real use leaves them. Written one meeting per transaction (imports, loads,
// proposals applied), each index gains a segment per write, and FTS5's automerge keeps up to three a level:
// 4-28 segments an index at 20k and 100k meetings, and a read walks every one of them (CPU per call at 20k:
// `the` 1.4x, `we` 1.9x, one title 2.2x the time on one segment; bench/README.md, "Full-text upkeep"). The worker
// merges them between jobs in small steps (`'merge'` with a page budget, one statement each, so the write
// lock is held for one step), back to one segment when the small ones add up to an eighth of the largest,
// else level by level (FTS5's `usermerge` 2: at most one segment a level), and does nothing when there is
// nothing to merge: one read of each index's structure record, no write.
import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { varint } from './fts-records.js';
import { isBusy } from '../sqlite/errors.js';

/** Every FTS5 index of the schema that reads use (drizzle/*.sql), the large ones first; search_words_scratch (0013) is always empty. */
export const FTS_INDEXES = ['search_fts', 'meeting_terms', 'meeting_titles', 'participant_words_fts', 'participant_handles_fts', 'title_words_fts'] as const;
export type FtsIndex = (typeof FTS_INDEXES)[number];

/** The small segments are merged into the largest once they hold this fraction of its pages (each page written ~9 times over an index's life). */
const FULL_MERGE_TAIL = 1 / 8;

/** An index's segments, read from its structure record (the row id 10 of `<index>_data`, FTS5's file format). */
export interface FtsShape {
  segments: number;
  /** Leaf pages in all segments. */
  pages: number;
  /** Leaf pages of the largest segment. */
  largest: number;
  /** Segments per level, oldest level last. */
  levels: number[];
  /** An incremental merge is under way (started by a `'merge'` command or by automerge). */
  merging: boolean;
}

/** The shape of one index, or null when it has no structure record. Reads one row; writes nothing. */
export function ftsShape(sqlite: Sqlite, index: FtsIndex): FtsShape | null {
  const block = stmt(sqlite, `SELECT block FROM ${index}_data WHERE id = 10`).pluck().get() as Uint8Array | undefined;
  if (!block || block.length < 6) return null;
  // A 4-byte cookie, then the marker of the second version (contentless_delete tables: five more fields a segment).
  let at = 4;
  const v2 = block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1;
  if (v2) at += 4;
  const next = (): number => {
    const [value, length] = varint(block, at);
    at += length;
    return value;
  };
  const levelCount = next();
  const segments = next();
  next(); // write counter
  const shape: FtsShape = { segments, pages: 0, largest: 0, levels: [], merging: false };
  for (let level = 0; level < levelCount; level++) {
    const merging = next();
    const count = next();
    if (merging > 0) shape.merging = true;
    shape.levels.push(count);
    for (let s = 0; s < count; s++) {
      next(); // segment id
      const first = next();
      const last = next();
      if (v2) for (let f = 0; f < 5; f++) next();
      const pages = last - first + 1;
      shape.pages += pages;
      shape.largest = Math.max(shape.largest, pages);
    }
  }
  return shape;
}

/** What the next step on an index does: nothing, start merging every segment into one, or merge within levels (and finish a merge under way). */
export function mergePlan(shape: FtsShape | null): 'none' | 'full' | 'level' {
  if (shape === null) return 'none';
  if (shape.merging) return 'level';
  if (shape.segments <= 1) return 'none';
  if (shape.pages - shape.largest >= shape.largest * FULL_MERGE_TAIL) return 'full';
  return shape.levels.some((n) => n >= 2) ? 'level' : 'none';
}

export interface FtsMergeStep {
  index: FtsIndex;
  plan: 'full' | 'level';
  /** Time the statement held the write lock. */
  ms: number;
}

export interface MergeOptions {
  /** Leaf pages one statement writes, about (a term's whole doclist is written at once). */
  pages?: number;
  /** No further statement once this much time is spent (each one holds the write lock while it runs). */
  budgetMs?: number;
  /** The index to begin with (the caller rotates it, so that one large index does not keep the others waiting). */
  first?: number;
}

/**
 * One bounded round of merging: at most one `'merge'` statement per index that needs it, each its own transaction.
 * Returns the steps that did work (FTS5's documented test: total_changes() moved by 2 or more); none means every
 * index is as merged as the plan wants, and then no statement but the structure reads ran. Never waits for
 * another writer: a busy database ends the round (busy_timeout is 0 meanwhile). The caller checkpoints the WAL
 * after it (no automatic checkpoint meanwhile).
 */
export function mergeFtsIndexes(sqlite: Sqlite, options: MergeOptions = {}): FtsMergeStep[] {
  const pages = options.pages ?? 64;
  const budgetMs = options.budgetMs ?? 20;
  const started = performance.now();
  const steps: FtsMergeStep[] = [];
  const busyTimeout = sqlite.pragma('busy_timeout', { simple: true }) as number;
  const autoCheckpoint = sqlite.pragma('wal_autocheckpoint', { simple: true }) as number;
  let waitsSet = false;
  try {
    for (let i = 0; i < FTS_INDEXES.length; i++) {
      if (performance.now() - started >= budgetMs) break;
      const index = FTS_INDEXES[((options.first ?? 0) + i) % FTS_INDEXES.length]!;
      const plan = mergePlan(ftsShape(sqlite, index));
      if (plan === 'none') continue;
      if (!waitsSet) {
        sqlite.pragma('busy_timeout = 0');
        // The commit that passes 1,000 WAL pages would checkpoint (and fsync) inside the round; maintain()
        // checkpoints after it instead (a 1.6 GB file just copied: 390-477 ms statements, none without).
        sqlite.pragma('wal_autocheckpoint = 0');
        waitsSet = true;
      }
      const t0 = performance.now();
      // A positive budget merges a level of 2 or more segments (FTS5's default is 4, as automerge); stored once in the index's config.
      if (plan === 'level' && stmt(sqlite, `SELECT v FROM ${index}_config WHERE k = 'usermerge'`).pluck().get() !== 2) {
        stmt(sqlite, `INSERT INTO ${index} (${index}, rank) VALUES ('usermerge', 2)`).run();
      }
      const before = totalChanges(sqlite);
      stmt(sqlite, `INSERT INTO ${index} (${index}, rank) VALUES ('merge', ?)`).run(plan === 'full' ? -pages : pages);
      if (totalChanges(sqlite) - before >= 2) steps.push({ index, plan, ms: performance.now() - t0 });
    }
  } catch (error) {
    // Another process is writing: its turn; the merge goes on at the next round.
    if (!isBusy(error)) throw error;
  } finally {
    if (waitsSet) {
      sqlite.pragma(`busy_timeout = ${busyTimeout}`);
      sqlite.pragma(`wal_autocheckpoint = ${autoCheckpoint}`);
    }
  }
  return steps;
}

function totalChanges(sqlite: Sqlite): number {
  return stmt(sqlite, 'SELECT total_changes()').pluck().get() as number;
}
