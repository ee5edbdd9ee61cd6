import type BetterSqlite3 from 'better-sqlite3';
import type { Sqlite } from './open.js';
import { InvalidInputError } from '../errors.js';

const cache = new WeakMap<Sqlite, Map<string, BetterSqlite3.Statement>>();

/**
 * How many prepared statements a connection keeps, the least recently used given up first. The texts are finite in shape,
 * but not few: the matrix of `npm run bench` and 6,000 searches and lists of varied words, fragments and pages prepared
 * 88 on one connection. Without a bound, every text a long-lived process ever prepared stayed for the connection's life.
 */
export const STATEMENTS_KEPT = 400;

/**
 * A prepared statement, prepared once per connection, in its default modes: a caller's pluck(), raw(), expand() or
 * safeIntegers() would otherwise stay set for the next caller of the same text (one such `pluck()` made a write of
 * the search bitmaps read `undefined` for a row). A statement given up (STATEMENTS_KEPT) still runs for a caller holding
 * it: SQLite finalizes it when it is collected.
 */
export function stmt<Row = unknown>(sqlite: Sqlite, source: string): BetterSqlite3.Statement<unknown[], Row> {
  let byText = cache.get(sqlite);
  if (!byText) {
    byText = new Map();
    cache.set(sqlite, byText);
  }
  let prepared = byText.get(source);
  if (!prepared) {
    prepared = sqlite.prepare(source);
    if (byText.size >= STATEMENTS_KEPT) byText.delete(byText.keys().next().value!);
  } else {
    byText.delete(source); // set again below: a Map's first key is then its least recently used
    prepared.safeIntegers(false);
    // Modes of statements that return rows only (better-sqlite3 refuses them on the others).
    if (prepared.reader) prepared.raw(false).pluck(false).expand(false);
  }
  byText.set(source, prepared);
  return prepared as BetterSqlite3.Statement<unknown[], Row>;
}

/** `BEGIN IMMEDIATE` transaction: for read-then-write work, so two processes never both read a stale state. */
export function immediate<T>(sqlite: Sqlite, work: () => T): T {
  return sqlite.transaction(work).immediate();
}

/** Escapes `%`, `_` and `\\` so a user's fragment is matched literally by `LIKE ... ESCAPE '\\'`. */
export function likeFragment(fragment: string): string {
  return `%${fragment.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Longest search fragment: far beyond any title or phrase, short enough to keep one query cheap. */
export const MAX_FRAGMENT_CHARS = 1_000;

/**
 * A fragment to match with LIKE or FTS5. Both read text only up to a NUL character (FTS5 then fails
 * with a syntax error, LIKE matches everything before it), so a fragment holding one is refused; so
 * is a fragment longer than MAX_FRAGMENT_CHARS (a 10 MB phrase held the server for seconds, and
 * SQLite refuses LIKE patterns over 50,000 bytes).
 */
export function matchFragment(fragment: string, parameter: string): string {
  if (fragment.includes('\0'))
    throw new InvalidInputError(`${parameter} contains a NUL character (U+0000), which no title, name or path holds. Remove it and search again.`);
  if (fragment.length > MAX_FRAGMENT_CHARS)
    throw new InvalidInputError(`${parameter} is ${fragment.length} characters long; the limit is ${MAX_FRAGMENT_CHARS}. Search with a shorter fragment.`);
  return fragment;
}
