// Issue 14's layering: nothing outside src/db holds SQL (the Store is the only way to the data, so a
// second engine never has to chase a query through the tools, the CLI, the worker or the app).
// dependency-cruiser checks the imports (.dependency-cruiser.cjs, store-is-the-door); this checks the text.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A statement as the SQL modules write it: keyword, then what it acts on. */
const SQL = /\b(SELECT\s+(\*|[a-z_][\w.]*\s*(,|\bAS\b|\bFROM\b))|INSERT\s+(OR\s+\w+\s+)?INTO\s+\w|UPDATE\s+\w+\s+SET\b|DELETE\s+FROM\s+\w|CREATE\s+(TABLE|INDEX|TRIGGER|VIRTUAL\s+TABLE)\b|PRAGMA\s+\w|BEGIN\s+IMMEDIATE)/;

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

describe('no SQL outside src/db', () => {
  it('the pattern finds the statements the SQL modules write', () => {
    for (const sql of [
      'SELECT id, title FROM meetings WHERE id = ?',
      'SELECT title FROM meetings',
      'SELECT * FROM folders',
      'INSERT OR IGNORE INTO proposals (id) VALUES (?)',
      "UPDATE recording_imports SET status = 'failed'",
      'DELETE FROM settings WHERE key = ?',
      'CREATE INDEX x ON y (z)',
      'PRAGMA wal_checkpoint(TRUNCATE)',
    ])
      expect(sql).toMatch(SQL);
    for (const prose of ['Select a recording to import.', 'Update the summary with the new text.', 'Delete from the list'])
      expect(prose).not.toMatch(SQL);
  });

  it('no file under src/ outside src/db holds a statement', () => {
    const found: string[] = [];
    for (const file of sources(join(ROOT, 'src'))) {
      const path = relative(ROOT, file);
      if (path.startsWith(join('src', 'db'))) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (SQL.test(line)) found.push(`${path}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
