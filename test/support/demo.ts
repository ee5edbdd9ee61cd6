import { openSqliteStore } from '../../src/db/sqlite/store.js';
import { loadDemo, type DemoResult } from '../../src/demo/dataset.js';

/**
 * The demo data set loaded into the SQLite file at `path` (e.g. `db.path`, or `sqlite.name` of a test
 * handle) through a Store of its own, closed afterwards: the handle of the caller sees the rows.
 */
export async function loadDemoInto(path: string, now: number): Promise<DemoResult> {
  const store = openSqliteStore(path, { create: false });
  try {
    return await loadDemo(store, now);
  } finally {
    await store.close();
  }
}
