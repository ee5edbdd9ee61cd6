import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { run } from '../cli/cli.js';

/** SQL as a given login role over the cluster's socket; resolves to the error code, or 'ok'. */
async function as(url: string, user: string, sql: string, values: unknown[] = []): Promise<string> {
  const client = new pg.Client({ connectionString: url.replace('postgres@', `${user}@`) });
  await client.connect();
  try {
    await client.query(sql, values);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end();
  }
}

describe.skipIf(needs('postgresql'))('syntheo db roles: PostgreSQL enforces who may do what', () => {
  let cluster: PgCluster;
  let url: string;
  beforeAll(async () => {
    cluster = await startPostgres();
    url = await cluster.createDatabase();
    const r = await run(['--db', url, 'db', 'roles']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('Roles ready on database syntheo_');
    expect(r.code).toBe(0);
    const name = url.split('/').pop()!.split('?')[0]!;
    cluster.psql(
      `CREATE ROLE ann LOGIN IN ROLE syntheo_assistant; CREATE ROLE worker1 LOGIN IN ROLE syntheo_app;
       INSERT INTO folders (id, path, name, created_at) VALUES ('fld_1', 'Team', 'Team', 'x');
       INSERT INTO meetings (id, title, started_at, note, folder_id, created_at, updated_at) VALUES ('mtg_1', 'Weekly', '2026-01-01T00:00:00.000Z', 'our note', 'fld_1', 'x', 'x');
       INSERT INTO summaries (id, meeting_id, content, created_at, updated_at) VALUES ('sum_1', 'mtg_1', 'summary', 'x', 'x');
       INSERT INTO participants (id, meeting_id, name) VALUES ('ppl_1', 'mtg_1', 'Ann');`,
      name,
    );
  });
  afterAll(() => cluster?.destroy());

  it("the assistants' role cannot change or delete a meeting, a summary or a note, even with raw SQL", async () => {
    expect(await as(url, 'ann', "UPDATE meetings SET note = 'hijacked' WHERE id = 'mtg_1'")).toBe('42501');
    expect(await as(url, 'ann', "UPDATE meetings SET title = 'x'")).toBe('42501');
    expect(await as(url, 'ann', 'DELETE FROM meetings')).toBe('42501');
    expect(await as(url, 'ann', "UPDATE summaries SET content = 'x'")).toBe('42501');
    expect(await as(url, 'ann', 'DELETE FROM summaries')).toBe('42501');
    expect(await as(url, 'ann', 'DELETE FROM participants')).toBe('42501');
    expect(await as(url, 'ann', 'TRUNCATE transcript_words')).toBe('42501');
    expect(await as(url, 'ann', "UPDATE proposals SET content = 'x'")).toBe('42501');
    expect(await as(url, 'ann', 'DROP TABLE meetings')).toBe('42501');
    const name = url.split('/').pop()!.split('?')[0]!;
    expect(cluster.psql("SELECT note FROM meetings WHERE id = 'mtg_1';", name).trim()).toBe('our note');
  });

  it('the assistants\' role reads everything, proposes, declines, and enqueues an import (its meeting included)', async () => {
    for (const t of ['meetings', 'summaries', 'participants', 'transcript_words', 'recording_imports', 'workers', 'settings', 'search_passages', 'drizzle.__drizzle_migrations'])
      expect(await as(url, 'ann', `SELECT * FROM ${t} LIMIT 1`), t).toBe('ok');
    expect(await as(url, 'ann', "INSERT INTO proposals (id, meeting_id, kind, content, base_content, created_at) VALUES ('prp_1', 'mtg_1', 'memo', 'new', 'our note', 'x')")).toBe('ok');
    expect(await as(url, 'ann', "UPDATE proposals SET status = 'declined', decided_at = 'y' WHERE id = 'prp_1'")).toBe('ok');
    // import_recording: a meeting in a folder (the folder count and search triggers run as the schema owner) and its job.
    expect(
      await as(
        url,
        'ann',
        `WITH m AS (INSERT INTO meetings (id, title, started_at, note, folder_id, source, created_at, updated_at) VALUES ('mtg_2', 'Rec', 'x', 'n', 'fld_1', 'import', 'x', 'x') RETURNING id)
         INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, created_at, updated_at) SELECT 'job_1', id, '/a.wav', 1, 0, 'wav', 'x', 'x' FROM m`,
      ),
    ).toBe('ok');
    const name = url.split('/').pop()!.split('?')[0]!;
    expect(cluster.psql("SELECT meeting_count FROM folders WHERE id = 'fld_1';", name).trim()).toBe('2');
    expect(cluster.psql("SELECT count(*) FROM search_passages WHERE ref_id = 'mtg_2';", name).trim()).toBe('1');
  });

  it("the app's role changes meetings, summaries and notes", async () => {
    expect(await as(url, 'worker1', "UPDATE meetings SET note = 'applied' WHERE id = 'mtg_1'")).toBe('ok');
    expect(await as(url, 'worker1', "UPDATE summaries SET content = 'better' WHERE id = 'sum_1'")).toBe('ok');
    expect(await as(url, 'worker1', "UPDATE recording_imports SET status = 'importing' WHERE id = 'job_1'")).toBe('ok');
    expect(await as(url, 'worker1', "DELETE FROM proposals WHERE id = 'prp_1'")).toBe('ok');
    // But not the schema.
    expect(await as(url, 'worker1', 'DROP TABLE meetings')).toBe('42501');
  });

  it('--print shows the SQL; an SQLite --db is refused with a usage error', async () => {
    const printed = await run(['--db', url, 'db', 'roles', '--print', '--assistant-role', 'ai']);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('GRANT INSERT ON meetings, recording_imports, recording_chunks, proposals TO ai;');
    const sqlite = await run(['--db', '/tmp/x.db', 'db', 'roles']);
    expect(sqlite.code).toBe(64);
    expect(sqlite.stderr).toContain('syntheo db roles is for a PostgreSQL database');
  });
});
