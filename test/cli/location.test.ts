// --db and SYNTHEO_DB name where the data is: an SQLite file, or a PostgreSQL URL kept as given (never
// read as a file path relative to the working directory), whose password no command prints.
import { describe, expect, it } from 'vitest';
import { run } from './cli.js';
import { tempDir } from '../support/db.js';

const SERVER = 'postgres://ann:s3cret@127.0.0.1:9/meetings';

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
