import type { Pool, PoolClient, QueryResultRow } from 'pg';

/** A pool (one statement, autocommit) or a client inside a transaction. */
export type Queryable = Pick<Pool, 'query'> | PoolClient;

// Reads run as named prepared statements: each connection parses and plans a statement once, then
// reuses it (planning the meeting list's subqueries cost ~10 ms a call, more than running them).
const names = new Map<string, string>();
const named = (text: string, values: unknown[]) => {
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `syntheo_${names.size}`));
  return { name, text, values };
};

export async function rows<R extends QueryResultRow>(q: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  return (await q.query<R>(named(text, values))).rows;
}

/**
 * The same, planned for its values at each call: for statements whose best plan depends on how common a value is (a
 * tag of 300 passages is probed one by one, one of 30,000 merged), which a prepared statement's generic plan, chosen
 * after five calls, would plan once for all. On a merge connection (withMergePlans, a Store's), prepared as rowsGeneric
 * prepares (parsed once, its COMPANION_STATEMENTS most recent kept), each call planned for its values there
 * (plan_cache_mode = force_custom_plan): a search's walked window was parsed and analysed again at each call, 0.2-0.9
 * ms of its 3-6 at 100k meetings. Elsewhere, an unnamed statement.
 */
export async function rowsPlanned<R extends QueryResultRow>(q: Queryable, text: string, values: unknown[] = []): Promise<R[]> {
  const client = q as PoolClient;
  const prepared = preparedOf.get(client);
  // (One that failed is prepared again at its next call if it was not: node-postgres takes a name for parsed once the
  // server says so.)
  return prepared === undefined ? (await q.query<R>(text, values)).rows : runPrepared<R>(client, prepared, 'syntheo_p', text, values);
}

export async function one<R extends QueryResultRow>(q: Queryable, text: string, values: unknown[] = []): Promise<R | undefined> {
  return (await q.query<R>(named(text, values))).rows[0];
}

export async function changes(q: Queryable, text: string, values: unknown[] = []): Promise<number> {
  return (await q.query(text, values)).rowCount ?? 0;
}

/** Runs of a transaction PostgreSQL aborted to break a deadlock (or a serialization failure) before its error is passed on. */
export const TRANSACTION_ATTEMPTS = 3;

/** A deadlock victim or a serialization failure: nothing of the transaction was kept, so it can simply run again. */
const isConflict = (error: unknown): boolean => {
  const code = (error as { code?: unknown; cause?: { code?: unknown } } | undefined)?.code ?? (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return code === '40P01' || code === '40001';
};

/**
 * Runs `work` in one transaction on one connection (READ COMMITTED, as every statement here is
 * written for: claims lock their rows, writes are guarded by their WHERE). When PostgreSQL aborts it to
 * break a deadlock (two writers taking the same rows in opposite orders: several folders' counters, a
 * meeting and its job), `work` runs again from the start, up to TRANSACTION_ATTEMPTS times, after a
 * short random pause (so the two do not meet again): every `work` here only reads and writes the
 * database (and reads files), so a run that was rolled back left nothing behind. `begin`: what opens it
 * (settings may follow BEGIN in the same round trip).
 */
export async function transaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if (attempt >= TRANSACTION_ATTEMPTS || !isConflict(error)) throw error;
    } finally {
      client.release();
    }
    await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * attempt));
  }
}

/** The planner settings of withMergePlans. */
const MERGE_PLAN_SETTINGS = ['enable_hashjoin = off', 'random_page_cost = 1.1', 'max_parallel_workers_per_gather = 0'];
/** Settings as one simple query (`SET`, or `SET LOCAL` inside a transaction). */
const setAll = (settings: string[], local = false): string => settings.map((s) => `SET ${local ? 'LOCAL ' : ''}${s}`).join('; ');

/** Each Store pool's companion for withMergePlans (registered by openPostgres). */
const mergePools = new WeakMap<Queryable, Pool>();
export const registerMergePool = (pool: Pool, merging: Pool): void => {
  mergePools.set(pool, merging);
  companions.set(merging, { settings: setAll([...MERGE_PLAN_SETTINGS, 'plan_cache_mode = force_custom_plan']), prepares: true });
};

/** Each Store pool's companion for rowsGeneric (registered by openPostgres). */
const genericPools = new WeakMap<Queryable, Pool>();
/** The companions' connections' prepared statements (rowsGeneric's, rowsPlanned's): text -> name, least recently used first. */
const preparedOf = new WeakMap<PoolClient, Map<string, string>>();
export const registerGenericPool = (pool: Pool, generic: Pool): void => {
  genericPools.set(pool, generic);
  companions.set(generic, { settings: setAll([...MERGE_PLAN_SETTINGS, 'plan_cache_mode = force_generic_plan']), prepares: true });
};
/** `pool`'s companion for rowsGeneric; undefined for a pool without one (another pool, a client). */
export const genericPoolOf = (pool: Queryable): Pool | undefined => genericPools.get(pool);

/**
 * Statements a companion's connection keeps prepared, at most (measured on a generic pool's): a search's window holds
 * 0.8-1.6 MB of the server's memory (its query trees and its plan at 100k meetings, pg_backend_memory_contexts), the
 * small statements before it 0.06-0.4 (a participant fragment's names, its gram). The bench matrix's 46 searches asked in
 * turn use 23 of them (31 since one word's windows and the page's hits are planned once too). With 11 kept, one was
 * prepared again at nearly every search (1.5-3 ms a window), and a rotation of them took 304 ms; with 32, 246 (p50 of 15,
 * two Stores in one process, rotations alternated). A generic connection then holds ~26 MB after such a rotation (11 MB
 * with 11 kept), a Store's two ~52 at most, until they close (idle 2 minutes). A merge connection's (rowsPlanned's) keep
 * no plan, only their parsed trees: ~0.2 MB each.
 */
export const COMPANION_STATEMENTS = 32;
/** A name is never used again once deallocated (node-postgres remembers the names it has parsed on a connection). */
let preparedNames = 0;

/** Each companion pool's settings, given to its connections on their first use, and whether they keep prepared statements. */
const companions = new WeakMap<Pool, { settings: string; prepares: boolean }>();
/** The companions' connections whose settings are given. */
const companionSet = new WeakSet<PoolClient>();
/** A companion's connection being made ahead of use (warmCompanions), which the first statement to need one waits for. */
const warming = new WeakMap<Pool, Promise<void>>();

/** A connection of companion pool `pool` with its settings given (a generic pool's with its map of prepared statements). */
async function companionClient(pool: Pool, ahead = false): Promise<PoolClient> {
  if (!ahead) await warming.get(pool);
  const client = await pool.connect();
  if (companionSet.has(client)) return client;
  const { settings, prepares } = companions.get(pool)!;
  try {
    await client.query(settings);
  } catch (error) {
    client.release(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
  companionSet.add(client);
  if (prepares) preparedOf.set(client, new Map());
  return client;
}

/**
 * Starts a connection of each of `pool`'s companions that has none (a Store's first use, or its first after their
 * connections closed, idle), its settings given, without waiting for it: a search needing two of them made each in turn,
 * ~15 ms a connection on this machine's server, 13-20 for its first statement (`the and` on a fresh Store: 99 ms, of
 * which 15 waited for the merge pool's connection and ~30 for the generic pool's). A statement needing one meanwhile
 * waits for it rather than making another. A connection that fails is left to the statement's own.
 */
export function warmCompanions(pool: Queryable): void {
  for (const companion of [mergePools.get(pool), genericPools.get(pool)]) {
    if (companion === undefined || companion.totalCount > 0 || warming.has(companion)) continue;
    const made = companionClient(companion, true).then(
      (client) => client.release(),
      () => {},
    );
    warming.set(companion, made);
    void made.finally(() => warming.delete(companion));
  }
}

/**
 * `text` run with `values` as a named statement planned once for any values (plan_cache_mode = force_generic_plan, and
 * the merge plans' settings) on a connection of `generic`, a Store pool's companion (genericPoolOf). Planning and parsing a search's window of several words cost 1.5-3 ms a call,
 * as much as running it; for statements whose plan holds whatever the values (see searchTranscripts). Each connection
 * keeps its COMPANION_STATEMENTS most recently used, and deallocates the others. A connection where anything failed is
 * closed, with its statements (a statement that failed may or may not be prepared; a broken connection is of no use).
 */
export async function rowsGeneric<R extends QueryResultRow>(generic: Pool, text: string, values: unknown[]): Promise<R[]> {
  const client = await companionClient(generic);
  let failed: Error | undefined;
  try {
    return await runPrepared<R>(client, preparedOf.get(client)!, 'syntheo_g', text, values);
  } catch (error) {
    failed = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    client.release(failed);
  }
}

/**
 * `text` as a named statement on companion connection `client`, among its `prepared` (made once, the COMPANION_STATEMENTS
 * most recently used kept), its name `prefix` and a number (`syntheo_g`: rowsGeneric's, `syntheo_p`: rowsPlanned's).
 */
async function runPrepared<R extends QueryResultRow>(client: PoolClient, prepared: Map<string, string>, prefix: string, text: string, values: unknown[]): Promise<R[]> {
  let name = prepared.get(text);
  if (name !== undefined) prepared.delete(text);
  else {
    name = `${prefix}${preparedNames++}`;
    const oldest = prepared.size >= COMPANION_STATEMENTS ? [...prepared][0] : undefined;
    if (oldest !== undefined) {
      prepared.delete(oldest[0]);
      await client.query(`DEALLOCATE ${oldest[1]}`);
      // The text node-postgres keeps by the name it parsed, if it does (the name is never used again).
      delete (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection?.parsedStatements?.[oldest[1]];
    }
  }
  prepared.set(text, name);
  return (await client.query<R>({ name, text, values })).rows;
}

/** `text` run as rowsGeneric runs it on `generic` when there is one (a Store pool's companion), else as `rows` on `q`. */
export const rowsGenericOr = <R extends QueryResultRow>(generic: Pool | undefined, q: Queryable, text: string, values: unknown[]): Promise<R[]> =>
  generic ? rowsGeneric<R>(generic, text, values) : rows<R>(q, text, values);

/**
 * Runs `work` where the planner merges or probes key ranges rather than hashing them. A word's postings and a
 * filter's tags are both in passage order: a merge reads each once, a probe (nested loop on the key) is cheaper when
 * one side is small; a hash of 190,000 passages of a common participant cost twice the merge (measured: 251 vs 126 ms
 * for `the` AND that participant), and with the default random_page_cost the planner merged a rare word's 452
 * passages with 166,000 tags instead of probing them (61 vs 18 ms). On a Store's pool: a connection of its companion
 * pool, which keeps the settings from its first such use on (a transaction with SET LOCAL cost two round trips more,
 * BEGIN and COMMIT, at every search). On another pool, in a transaction with SET LOCAL (the pooled connection keeps its own
 * settings afterwards); inside a caller's transaction (a client), the settings hold until it ends.
 */
export async function withMergePlans<T>(q: Queryable, work: (c: Queryable) => Promise<T>): Promise<T> {
  const merging = mergePools.get(q);
  if (merging) {
    const client = await companionClient(merging);
    try {
      return await work(client);
    } finally {
      client.release();
    }
  }
  const settings = setAll(MERGE_PLAN_SETTINGS, true);
  if (!('totalCount' in q)) {
    await q.query(settings);
    return work(q);
  }
  // Begun with the settings in one round trip (a simple query may hold several statements).
  return transaction(q as unknown as Pool, work, `BEGIN; ${settings}`);
}

/** A time given by the caller as ISO text, or null for the database's clock (see syntheo_at in migration 0002). */
export const at = (now: number | undefined): string | null => (now === undefined ? null : new Date(now).toISOString());
