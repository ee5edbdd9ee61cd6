import type BetterSqlite3 from 'better-sqlite3';
import type { Sqlite } from './open.js';
import { InvalidInputError } from '../errors.js';

const cache = new WeakMap<Sqlite, Map<string, BetterSqlite3.Statement>>();

/**
 * A prepared statement, prepared once per connection, in its default modes: a caller's pluck(), raw(), expand() or
 * safeIntegers() would otherwise stay set for the next caller of the same text (one such `pluck()` made a write of
 * the search bitmaps read `undefined` for a row).
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
    byText.set(source, prepared);
  } else {
    prepared.safeIntegers(false);
    // Modes of statements that return rows only (better-sqlite3 refuses them on the others).
    if (prepared.reader) prepared.raw(false).pluck(false).expand(false);
  }
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
