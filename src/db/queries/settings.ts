import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { nowIso } from '../time.js';

export function readSettings(sqlite: Sqlite): Record<string, string> {
  const rows = stmt<{ key: string; value: string }>(sqlite, 'SELECT key, value FROM settings ORDER BY key').all();
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

export function writeSetting(sqlite: Sqlite, key: string, value: string): void {
  stmt(sqlite, 'INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at').run(
    key,
    value,
    nowIso(),
  );
}

/** True when the key was set. */
export function deleteSetting(sqlite: Sqlite, key: string): boolean {
  return stmt(sqlite, 'DELETE FROM settings WHERE key = ?').run(key).changes > 0;
}
