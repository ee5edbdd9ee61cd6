import type BetterSqlite3 from 'better-sqlite3';
import type { Sqlite } from './open.js';

const cache = new WeakMap<Sqlite, Map<string, BetterSqlite3.Statement>>();

/** A prepared statement, prepared once per connection. */
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
