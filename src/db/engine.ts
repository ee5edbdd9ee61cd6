import { resolveDbPath } from './open.js';
import type { Store } from './store.js';
import type { OnSchemaNotice } from './model/schema-notice.js';
import type { CopyProgress, CopyResult } from './copy.js';
import { isPostgresUrl, pgTarget, type RoleNames } from './model/postgres.js';

export interface OpenStoreOptions {
  /** Create the database (file, folder, schema) when missing: mcp, the worker, writing CLI commands. */
  create: boolean;
  /** Connect on the first call instead of now (`syntheo mcp`: start-up must stay cheap). */
  lazy?: boolean;
  /** Told when an existing database's schema is upgraded (it can take a minute), or when opening waits for another process's upgrade. */
  onSchema?: OnSchemaNotice;
  /**
   * A server answering questions (`syntheo mcp`, the app): on PostgreSQL, the connections and statistics searches use
   * are made and read ahead of use, on the first call and again once they closed, idle. Nothing on SQLite.
   */
  warm?: boolean;
}

export { isPostgresUrl };

/** `--db`, else SYNTHEO_DB, else the platform's default SQLite file. A URL is kept as given. */
export function resolveDbLocation(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? (env.SYNTHEO_DB || undefined);
  if (chosen !== undefined && isPostgresUrl(chosen)) return chosen;
  return resolveDbPath(flag, env);
}

/**
 * The Store for a location: a PostgreSQL URL selects the PostgreSQL engine, anything else is an SQLite
 * file path. The engine's module loads here, on first use, not at import.
 */
export async function openStore(location: string, options: OpenStoreOptions): Promise<Store> {
  if (isPostgresUrl(location)) {
    const { openPostgresStore } = await import('./postgres/store.js');
    return openPostgresStore(location, options);
  }
  const { openSqliteStore } = await import('./sqlite/store.js');
  return openSqliteStore(location, options);
}

// Administration of a database as a whole (`syntheo db`): loaded on use, like the engines.

/** The statements that create (or bring up to date) the team roles on a PostgreSQL database. */
export async function postgresRolesSql(url: string, names?: RoleNames): Promise<string[]> {
  const { rolesSql } = await import('./postgres/roles.js');
  return rolesSql(pgTarget(url).database, names);
}

/** Creates (or brings up to date) the team roles on a PostgreSQL database. */
export async function createPostgresRoles(url: string, names?: RoleNames, onSchema?: OnSchemaNotice): Promise<{ database: string; roles: RoleNames }> {
  const { createRoles } = await import('./postgres/roles.js');
  return createRoles(url, names, onSchema);
}

/** Copies every table of one database into another, empty one (SQLite or PostgreSQL, either way). */
export async function copyDatabase(from: string, to: string, onProgress?: CopyProgress, onSchema?: OnSchemaNotice): Promise<CopyResult> {
  const copy = await import('./copy.js');
  return copy.copyDatabase(from, to, onProgress, onSchema);
}
