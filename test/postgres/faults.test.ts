import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needs } from '../support/system-tools.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { openStore } from '../../src/db/engine.js';

describe.skipIf(needs('postgresql'))('PostgreSQL Store: the server goes away and comes back', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(() => cluster?.destroy());

  it('calls during an outage fail with a clear storage error; the same Store works again after the restart', async () => {
    const url = await cluster.createDatabase();
    const store = await openStore(url, { create: true });
    try {
      await store.folders.ensure('Team/Design');
      await store.workers.register({ id: 'wrk_a', concurrency: 1, version: '0.1.0' });
      expect((await store.folders.list({}, { limit: 10, offset: 0 })).pagination.total).toBe(2);

      cluster.stopServer();
      const error = (await store.folders.list({}, { limit: 10, offset: 0 }).catch((e: unknown) => e)) as Error & { kind?: string };
      expect(error.message).toMatch(/^(The PostgreSQL database at .+ cannot be reached right now \(it may be restarting\)\. Try again in a moment\.|Cannot connect to PostgreSQL at .+: nothing is listening there\. .*)$/);
      expect(['storage', 'unavailable']).toContain(error.kind);
      expect(error.message).not.toMatch(/SELECT|\n/);

      cluster.start();
      expect((await store.folders.list({}, { limit: 10, offset: 0 })).folders.map((f) => f.path)).toEqual(['Team', 'Team/Design']);
      expect((await store.workers.latest())?.id).toBe('wrk_a');
    } finally {
      await store.close();
    }
  });

  it('a lazy Store whose first connection fails connects on a later call', async () => {
    const url = await cluster.createDatabase();
    cluster.stopServer();
    const store = await openStore(url, { create: true, lazy: true });
    try {
      await expect(store.meetings.counts()).rejects.toThrow(/Cannot connect to PostgreSQL at .*: nothing is listening there/);
      cluster.start();
      expect(await store.meetings.counts()).toEqual({ meetings: 0, folders: 0, pending_proposals: 0, active_imports: 0 });
    } finally {
      await store.close();
    }
  });
});
