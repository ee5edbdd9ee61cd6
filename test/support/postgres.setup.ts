import type { TestProject } from 'vitest/node';
import { openStore } from '../../src/db/engine.js';
import { startPostgres, type PgCluster } from './postgres.js';

// vitest globalSetup of the `postgres` project (vitest.config.ts): one throwaway cluster for the whole
// run, with a migrated template database; each test file copies its seeded SQLite file into a fresh
// database made from that template (serve() in test/support/engine.ts).

const TEMPLATE = 'syntheo_template';

let cluster: PgCluster | undefined;

export default async function setup(project: TestProject): Promise<() => void> {
  cluster = await startPostgres();
  cluster.psql(`CREATE DATABASE ${TEMPLATE};`);
  const store = await openStore(cluster.url(TEMPLATE), { create: true });
  await store.close();
  project.provide('postgresCluster', { socketDir: cluster.socketDir, port: cluster.port, template: TEMPLATE });
  return () => cluster?.destroy();
}
