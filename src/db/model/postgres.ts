// Pure facts about a PostgreSQL database that code outside src/db may need (the CLI's `syntheo db`
// commands): where a URL points, and the names of the team roles. No SQL, no driver.

const URL_SCHEME = /^postgres(ql)?:\/\//i;

/** True when `location` names a PostgreSQL database (a postgres:// or postgresql:// URL). */
export function isPostgresUrl(location: string): boolean {
  return URL_SCHEME.test(location);
}

/** Where a PostgreSQL URL points, as messages may show it: host (or socket folder), port, database, user; never the password. */
export interface PgTarget {
  host: string;
  port: number;
  database: string;
  user: string | undefined;
}

export function pgTarget(url: string): PgTarget {
  let u: URL;
  try {
    // A login with no host (`postgresql://me@/db?host=/run/postgresql`, a Unix socket) is valid for
    // PostgreSQL but not for the WHATWG parser: read it with an explicit host, which ?host= overrides.
    u = new URL(url.replace(/^(postgres(?:ql)?:\/\/[^/?#]*@)(?=[/?#]|$)/i, '$1localhost'));
  } catch {
    return { host: '(invalid URL)', port: 5432, database: '', user: undefined };
  }
  const q = u.searchParams;
  const host = q.get('host') || decodeURIComponent(u.hostname) || 'localhost';
  const port = Number(q.get('port') || u.port || 5432);
  const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || 'postgres';
  return { host, port, database, user: u.username ? decodeURIComponent(u.username) : undefined };
}

/** `host:port/database`, the way every PostgreSQL message names the database. */
export function describeTarget(url: string): string {
  const t = pgTarget(url);
  return `${t.host}:${t.port}/${t.database}`;
}

/** The two group roles of a team database (`syntheo db roles`). */
export interface RoleNames {
  assistant: string;
  app: string;
}

export const DEFAULT_ROLES: RoleNames = { assistant: 'syntheo_assistant', app: 'syntheo_app' };
