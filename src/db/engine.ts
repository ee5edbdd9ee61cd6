import { resolveDbPath } from './open.js';

/** Which engine a `--db` / SYNTHEO_DB value selects: a PostgreSQL URL, or an SQLite file (the default). */
export type EngineChoice = { engine: 'sqlite'; path: string } | { engine: 'postgres'; url: string };

const POSTGRES_URL = /^postgres(ql)?:\/\//i;

export function isPostgresUrl(location: string): boolean {
  return POSTGRES_URL.test(location);
}

/** `--db`, else SYNTHEO_DB, else the platform's default SQLite file. */
export function chooseEngine(flag?: string, env: NodeJS.ProcessEnv = process.env): EngineChoice {
  const chosen = flag ?? (env.SYNTHEO_DB || undefined);
  if (chosen !== undefined && isPostgresUrl(chosen)) return { engine: 'postgres', url: chosen };
  return { engine: 'sqlite', path: resolveDbPath(flag, env) };
}
