import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { needs } from '../support/system-tools.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { openPostgres, type PgDb } from '../../src/db/postgres/open.js';
import { TRANSACTION_ATTEMPTS, transaction } from '../../src/db/postgres/sql.js';

// Two writers that take the same rows in opposite orders deadlock; PostgreSQL aborts one of them
// (40P01). transaction() runs the victim's work again, so both writes land and neither caller sees an
// error. Any other error is passed on at once, and a conflict that keeps coming back after
// TRANSACTION_ATTEMPTS runs is too.

describe.skipIf(needs('postgresql'))('PostgreSQL transaction() after a deadlock', () => {
  let cluster: PgCluster;
  let db: PgDb;

  beforeAll(async () => {
    cluster = await startPostgres();
    db = await openPostgres(await cluster.createDatabase(), { create: true, max: 4 });
    await db.pool.query('CREATE TABLE counters (id int PRIMARY KEY, n int NOT NULL)');
  });
  afterAll(async () => {
    await db?.close();
    cluster?.destroy();
  });

  /** Both transactions hold their first row before either asks for its second: a deadlock on the first runs. */
  function crossed() {
    let waiting = 0;
    let release!: () => void;
    const bothHold = new Promise<void>((resolve) => (release = resolve));
    const runs = { a: 0, b: 0 };
    const writer = (name: 'a' | 'b', first: number, second: number) =>
      transaction(db.pool, async (c) => {
        runs[name]++;
        await c.query('UPDATE counters SET n = n + 1 WHERE id = $1', [first]);
        if (runs[name] === 1) {
          if (++waiting === 2) release();
          await bothHold;
        }
        await c.query('UPDATE counters SET n = n + 1 WHERE id = $1', [second]);
        return name;
      });
    return { runs, writer };
  }

  it('runs the deadlock victim again: both writes land, once each', async () => {
    await db.pool.query('DELETE FROM counters; INSERT INTO counters VALUES (1, 0), (2, 0)');
    const { runs, writer } = crossed();
    expect(await Promise.all([writer('a', 1, 2), writer('b', 2, 1)])).toEqual(['a', 'b']);
    // One of them ran twice (the victim), the other once; each counted once per row.
    expect(runs.a + runs.b).toBe(3);
    expect((await db.pool.query('SELECT id, n FROM counters ORDER BY id')).rows).toEqual([
      { id: 1, n: 2 },
      { id: 2, n: 2 },
    ]);
  });

  it('passes other errors on at once, and a conflict that comes back every run after the last one', async () => {
    let runs = 0;
    await expect(
      transaction(db.pool, async (c) => {
        runs++;
        await c.query('SELECT 1 / 0');
      }),
    ).rejects.toMatchObject({ code: '22012' });
    expect(runs).toBe(1);

    runs = 0;
    await expect(
      transaction(db.pool, async (c) => {
        runs++;
        await c.query("DO $$ BEGIN RAISE EXCEPTION 'always' USING ERRCODE = '40P01'; END $$");
      }),
    ).rejects.toMatchObject({ code: '40P01' });
    expect(runs).toBe(TRANSACTION_ATTEMPTS);
  });
});
