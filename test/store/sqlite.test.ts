// The Store conformance suite on the SQLite engine: a fresh database file in a temp folder per test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { describeStoreConformance } from './conformance.js';

describeStoreConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'syntheo-store-'));
  const store = openSqliteStore(join(dir, 'syntheo.db'), { create: true });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
