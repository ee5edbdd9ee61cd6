import type { TestProject } from 'vitest/node';
import { createPostgresRoles, openStore } from '../../src/db/engine.js';
import { startPostgres, type PgCluster } from './postgres.js';

// vitest globalSetup of the `postgres` project (vitest.config.ts): one throwaway cluster for the whole
// run, with a migrated template database; each test file copies its seeded SQLite file into a fresh
// database made from that template (serve() in test/support/engine.ts). The template has the team
// roles (syntheo db roles; databases made from it keep the grants): `syntheo mcp` logs in as a member of
// the assistants' role and workers as a member of the app's role, as on a team database; the tests' own
// reads and writes use the superuser.

const TEMPLATE = 'syntheo_template';
const ASSISTANT = 'contract_assistant';
const APP = 'contract_app';

let cluster: PgCluster | undefined;

export default async function setup(project: TestProject): Promise<() => void> {
  cluster = await startPostgres();
  cluster.psql(`CREATE DATABASE ${TEMPLATE};`);
  const store = await openStore(cluster.url(TEMPLATE), { create: true });
  await store.close();
  const { roles } = await createPostgresRoles(cluster.url(TEMPLATE));
  cluster.psql(`CREATE ROLE ${ASSISTANT} LOGIN IN ROLE ${roles.assistant}; CREATE ROLE ${APP} LOGIN IN ROLE ${roles.app};`);
  project.provide('postgresCluster', { socketDir: cluster.socketDir, port: cluster.port, template: TEMPLATE, assistant: ASSISTANT, app: APP });
  return () => cluster?.destroy();
}
