import { resolveDbPath } from './open.js';
import type { Store } from './store.js';

export interface OpenStoreOptions {
  /** Create the database (file, folder, schema) when missing: mcp, the worker, writing CLI commands. */
  create: boolean;
  /** Connect on the first call instead of now (`syntheo mcp`: start-up must stay cheap). */
  lazy?: boolean;
}

const URL_SCHEME = /^postgres(ql)?:\/\//i;

/** True when `location` names a PostgreSQL database (a postgres:// or postgresql:// URL). */
export function isPostgresUrl(location: string): boolean {
  return URL_SCHEME.test(location);
}

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
  if (isPostgresUrl(location)) throw new Error('PostgreSQL is not available in this build.');
  const { openSqliteStore } = await import('./sqlite/store.js');
  return openSqliteStore(location, options);
}
