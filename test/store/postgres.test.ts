// The Store conformance suite on the PostgreSQL engine: one throwaway cluster for the file, a fresh
// database per test (test/support/postgres.ts).
import { afterAll, beforeAll } from 'vitest';
import { needs } from '../support/system-tools.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { openPostgresStore } from '../../src/db/postgres/store.js';
import { describeStoreConformance } from './conformance.js';

const skip = needs('postgresql');
let cluster: PgCluster | undefined;
if (!skip) {
  beforeAll(async () => {
    cluster = await startPostgres();
  });
  afterAll(() => cluster?.destroy());
}

if (!skip)
  describeStoreConformance('postgres', async () => {
    const url = await cluster!.createDatabase('conformance');
    const store = await openPostgresStore(url, { create: true });
    return { store, cleanup: () => store.close() };
  });
