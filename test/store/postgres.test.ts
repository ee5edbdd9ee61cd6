// The Store conformance suite on the PostgreSQL engine: one throwaway cluster for the file, a fresh
// database per test (test/support/postgres.ts), copied from one migrated once (CREATE DATABASE …
// TEMPLATE): migrating each empty database cost ~0.5 s, 66 times. Migrating an empty database has its
// own tests (test/postgres/open.test.ts).
import { afterAll, beforeAll } from 'vitest';
import { needs } from '../support/system-tools.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { openPostgresStore } from '../../src/db/postgres/store.js';
import { describeStoreConformance } from './conformance.js';

const skip = needs('postgresql');
const TEMPLATE = 'conformance_template';
let cluster: PgCluster | undefined;
if (!skip) {
  beforeAll(async () => {
    cluster = await startPostgres();
    cluster.psql(`CREATE DATABASE ${TEMPLATE};`);
    await (await openPostgresStore(cluster.url(TEMPLATE), { create: true })).close();
  });
  afterAll(() => cluster?.destroy());
}

if (!skip)
  describeStoreConformance('postgres', async () => {
    const url = await cluster!.createDatabase('conformance', TEMPLATE);
    const store = await openPostgresStore(url, { create: true });
    return { store, cleanup: () => store.close() };
  });
