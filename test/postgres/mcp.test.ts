import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { needs } from '../support/system-tools.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { tempDir } from '../support/db.js';
import { writeWav } from '../support/wav.js';
import { call, callError, connectV2, type Connected } from '../support/mcp.js';
import { run } from '../cli/cli.js';
import { openStore } from '../../src/db/engine.js';
import type { Store } from '../../src/db/store.js';
import type { Client } from '@modelcontextprotocol/client';

// `syntheo mcp` on PostgreSQL, logged in as a member of the assistants' role (syntheo db roles): every
// tool works, including the writes assistants may make; an outage is a -32603 with a clear message,
// and the same server answers again once PostgreSQL is back.

describe.skipIf(needs('postgresql'))('syntheo mcp on PostgreSQL under the assistants\' role', () => {
  let cluster: PgCluster;
  let tmp: ReturnType<typeof tempDir>;
  let assistantUrl: string;
  let app: Store;
  let mcp: Connected<Client>;
  beforeAll(async () => {
    cluster = await startPostgres();
    tmp = tempDir();
    const url = await cluster.createDatabase();
    expect((await run(['--db', url, 'demo'])).code).toBe(0);
    expect((await run(['--db', url, 'db', 'roles'])).code).toBe(0);
    cluster.psql('CREATE ROLE ann LOGIN IN ROLE syntheo_assistant; CREATE ROLE worker1 LOGIN IN ROLE syntheo_app;');
    assistantUrl = url.replace('postgres@', 'ann@');
    // The app (worker) is open: its heartbeat, written under the app's role.
    app = await openStore(url.replace('postgres@', 'worker1@'), { create: false });
    await app.workers.register({ id: 'wrk_team', concurrency: 2, version: '0.1.0' });
    mcp = await connectV2(assistantUrl, 'modern');
  });
  afterAll(async () => {
    await mcp?.close();
    await app?.close();
    cluster?.destroy();
    tmp?.cleanup();
  });

  it('reads, searches, proposes, declines and imports', async () => {
    const list = await call<{ meetings: { id: string; title: string }[]; pagination: { total: number } }>(mcp.client, 'list_meetings', { limit: 50 });
    expect(list.pagination.total).toBe(10);
    const id = list.meetings[0]!.id;
    expect((await call<{ id: string }>(mcp.client, 'get_meeting', { meeting_id: id })).id).toBe(id);
    const withWords = list.meetings.find((m) => m.title.length > 0)!;
    await call(mcp.client, 'get_meeting_transcript', { meeting_id: withWords.id, limit: 20 });
    await call(mcp.client, 'export_meeting', { meeting_id: id });
    await call(mcp.client, 'list_folders', {});
    const hits = await call<{ hits: unknown[] }>(mcp.client, 'search_transcripts', { query: 'launch' });
    expect(hits.hits.length).toBeGreaterThan(0);
    const proposal = await call<{ id: string; status: string }>(mcp.client, 'propose_memo_edit', { meeting_id: id, content: 'Agreed: ship on Friday.\n' });
    expect(proposal.status).toBe('pending');
    expect((await call<{ status: string }>(mcp.client, 'decline_proposal', { proposal_id: proposal.id })).status).toBe('declined');
    const job = await call<{ job_id: string; processing_status: string }>(mcp.client, 'import_recording', { file_path: writeWav(join(tmp.dir, 'standup.wav'), 1), request_key: 'team-1' });
    expect(job.processing_status).toBe('queued');
    expect((await call<{ processing_status: string }>(mcp.client, 'get_recording_import', { job_id: job.job_id })).processing_status).toBe('queued');
    // Unknown IDs are still -32602 naming the ID.
    const missing = await callError(mcp.client, 'get_meeting', { meeting_id: 'mtg_nope' });
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain('mtg_nope');
  });

  it('PostgreSQL down: -32603 with a clear message; back up: the same server answers', async () => {
    cluster.stopServer();
    try {
      const down = await callError(mcp.client, 'list_meetings', {});
      expect(down.code).toBe(-32603);
      expect(down.message).toMatch(/cannot be reached right now|Cannot connect to PostgreSQL at/);
      expect(down.message).not.toMatch(/SELECT|ECONNREFUSED|\n/);
    } finally {
      cluster.start();
    }
    expect((await call<{ pagination: { total: number } }>(mcp.client, 'list_meetings', {})).pagination.total).toBe(11);
  });
});
