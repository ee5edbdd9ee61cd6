// --db and SYNTHEO_DB name where the data is: an SQLite file, or a PostgreSQL URL kept as given (never
// read as a file path relative to the working directory), whose password no command prints.
import { describe, expect, it } from 'vitest';
import { run } from './cli.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from '../../src/package.js';
import { databaseMigratedTo, tempDir } from '../support/db.js';

const SERVER = 'postgres://ann:s3cret@127.0.0.1:9/meetings';
const MIGRATIONS = (JSON.parse(readFileSync(join(MIGRATIONS_DIR, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] }).entries;

describe('a PostgreSQL URL as the database', () => {
  it('doctor fails without printing its password, and never reads it as a file', async () => {
    const { dir, cleanup } = tempDir();
    try {
      for (const r of [await run(['--db', SERVER, 'doctor'], { cwd: dir }), await run(['--json', 'doctor'], { cwd: dir, env: { SYNTHEO_DB: SERVER } })]) {
        expect(r.code).not.toBe(0);
        const out = r.stdout + r.stderr;
        expect(out).not.toContain('s3cret');
        expect(out).not.toContain(dir);
      }
    } finally {
      cleanup();
    }
  });

  it('studio refuses it (Drizzle Studio browses an SQLite file), exit 1, password not shown', async () => {
    const r = await run(['--db', SERVER, 'studio']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('syntheo: syntheo studio browses an SQLite database file; for PostgreSQL, use a PostgreSQL client (psql, pgAdmin).\n');
  });
});

describe('an SQLite file written by an older version', () => {
  it('is upgraded with a line on stderr before and after (a long upgrade is not a silent pause); stdout stays the answer', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'old.db');
      databaseMigratedTo(path, MIGRATIONS.length - 2).close();
      const r = await run(['--json', '--db', path, 'meetings', 'list']);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ command: 'meetings list', data: [] });
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe(`Upgrading the database at ${path} to this version's schema (1 migration: ${MIGRATIONS.at(-1)!.tag}); on a large database this takes a minute or more...`);
      expect(lines[1]).toMatch(/^Upgraded the database at .*old\.db in \d+\.\d s\.$/);
      // Current now: nothing more is said.
      const again = await run(['--db', path, 'meetings', 'list']);
      expect(again.code).toBe(0);
      expect(again.stderr).toBe('');
    } finally {
      cleanup();
    }
  });
});
