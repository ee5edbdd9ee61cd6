import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { tempDir } from '../support/db.js';
import { run } from '../cli/cli.js';
import { openStore } from '../../src/db/engine.js';

/** Every meeting's export record (syntheo.meeting/v1), by the SQLite Store. */
async function exportAll(path: string): Promise<unknown[]> {
  const store = await openStore(path, { create: false });
  try {
    const { meetings } = await store.meetings.list({}, { limit: 200, offset: 0 });
    return Promise.all(meetings.map((m) => store.meetings.export(m.id)));
  } finally {
    await store.close();
  }
}

const PASSAGES = 'SELECT kind, ref_id, word_offset, speaker, text FROM search_passages ORDER BY kind, ref_id, word_offset';
const REST = {
  proposals: 'SELECT id, meeting_id, kind, target_id, content, base_content, status, created_at FROM proposals ORDER BY id',
  folders: 'SELECT id, path, parent_id, meeting_count FROM folders ORDER BY id',
  settings: 'SELECT key, value FROM settings ORDER BY key',
  series: 'SELECT id, title, cadence FROM series ORDER BY id',
};

function sqliteRows(path: string, sql: string): unknown[] {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

describe.skipIf(needs('postgresql'))('syntheo db copy: SQLite -> PostgreSQL -> SQLite without loss', () => {
  let cluster: PgCluster;
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    cluster = await startPostgres();
    tmp = tempDir();
  });
  afterAll(() => {
    cluster?.destroy();
    tmp?.cleanup();
  });

  it('round-trips the demo to identical export JSON, proposals, folders, settings and search passages', async () => {
    const a = join(tmp.dir, 'a.db');
    const b = join(tmp.dir, 'b.db');
    const url = await cluster.createDatabase();
    expect((await run(['--db', a, 'demo'])).code).toBe(0);
    expect((await run(['--db', a, 'config', 'set', 'llm.model', 'llama3'])).code).toBe(0);

    const there = await run(['--json', 'db', 'copy', '--from', a, '--to', url]);
    expect(there.stderr).toBe('');
    expect(there.code).toBe(0);
    const copied = JSON.parse(there.stdout) as { data: { tables: Record<string, number> } };
    expect(copied.data.tables.meetings).toBe(10);
    expect(copied.data.tables.transcript_words).toBe((sqliteRows(a, 'SELECT count(*) AS n FROM transcript_words')[0] as { n: number }).n);

    // PostgreSQL holds the same derived data: search passages and folder counts rebuilt there.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query(PASSAGES)).rows).toEqual(sqliteRows(a, PASSAGES));
      expect((await client.query(REST.folders)).rows).toEqual(sqliteRows(a, REST.folders));
    } finally {
      await client.end();
    }

    const back = await run(['db', 'copy', '--from', url, '--to', b]);
    expect(back.code).toBe(0);
    expect(back.stdout).toMatch(/^Copied .*:\d+\/syntheo_\S+ to .*b\.db: series \d+, folders \d+, meetings 10, /);

    const original = await exportAll(a);
    expect(original).toHaveLength(10);
    expect(await exportAll(b)).toEqual(original);
    for (const sql of [...Object.values(REST), PASSAGES]) expect(sqliteRows(b, sql)).toEqual(sqliteRows(a, sql));
  });

  it('refuses a target that already holds data, and changes nothing there', async () => {
    const a = join(tmp.dir, 'full.db');
    expect((await run(['--db', a, 'demo'])).code).toBe(0);
    const url = await cluster.createDatabase();
    expect((await run(['db', 'copy', '--from', a, '--to', url])).code).toBe(0);
    const again = await run(['db', 'copy', '--from', a, '--to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/The target database .*:\d+\/syntheo_\S+ already holds data: db copy only fills an empty database \(it never merges\)/);
    const usage = await run(['db', 'copy', '--from', a]);
    expect(usage.code).toBe(64);
  });
});
