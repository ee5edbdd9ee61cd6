import { StorageError, SyntheoError, UnavailableError } from '../../errors.js';

export { pgTarget, describeTarget, type PgTarget } from '../model/postgres.js';
import { describeTarget, pgTarget } from '../model/postgres.js';

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * A failure to connect, in one line: what, where (host, port, database, user) and what to do.
 * Driver messages are used only where they carry no secret (they never hold the password, but the URL
 * may, so the URL itself is never shown).
 */
export function connectionError(url: string, error: unknown): SyntheoError {
  if (error instanceof SyntheoError) return error;
  const t = pgTarget(url);
  const where = `PostgreSQL at ${t.host}:${t.port} (database ${t.database}${t.user ? `, user ${t.user}` : ''})`;
  const e = error as { code?: string; message?: string };
  const code = e.code ?? '';
  const message = e.message ?? '';
  let reason: string;
  if (code === '28P01' || /password authentication failed/i.test(message)) reason = 'the password was refused. Check the password in the URL (or PGPASSWORD / ~/.pgpass)';
  else if (code === '28000') reason = 'this user may not connect there (pg_hba.conf or a missing role). Check the user name and the server\'s pg_hba.conf';
  else if (/client password must be a string|no password/i.test(message)) reason = 'the server asks for a password and none was given. Put it in the URL, PGPASSWORD or ~/.pgpass';
  else if (code === '3D000') reason = `database ${t.database} does not exist. Create it (createdb ${t.database}) or fix the URL`;
  else if (code === 'ECONNREFUSED' || code === 'ENOENT') reason = 'nothing is listening there. Check that PostgreSQL is running and the host and port are right';
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') reason = `the host name ${t.host} cannot be resolved. Check the host in the URL`;
  else if (code === 'ETIMEDOUT' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || /timeout/i.test(message)) reason = 'the server did not answer in time. Check the host, the network and any firewall';
  else if (code === '57P03') reason = 'the server is starting up or shutting down. Try again in a moment';
  else if (code === '53300') reason = 'the server has no free connection slots. Try again, or raise max_connections';
  else if (/SSL|certificate/i.test(message)) reason = `TLS failed (${oneLine(message).slice(0, 120)}). Check sslmode in the URL`;
  else reason = code ? `the connection failed (${code})` : 'the connection failed';
  return new UnavailableError(`Cannot connect to ${where}: ${reason}.`);
}

/** PostgreSQL SQLSTATE classes that mean the server went away or restarts: the call may succeed again shortly. */
const CONNECTION_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOENT', 'ETIMEDOUT']);

export function isConnectionFailure(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && CONNECTION_CODES.has(e.code)) return true;
  return /Connection terminated|connection timeout|Client has encountered a connection error|terminating connection/i.test(e.message ?? '');
}

/**
 * An error from a query, worded for people and models: never SQL, never the driver's text about a
 * table. Connection losses say the database is unreachable; privileges say which role lacks what.
 */
export function toStorageError(url: string, error: unknown): unknown {
  if (error instanceof SyntheoError) return error;
  const e = error as { code?: string };
  // Not from PostgreSQL (no SQLSTATE) nor a lost connection: a bug or a file error, passed on as it is.
  if (!isConnectionFailure(error) && !/^[0-9A-Z]{5}$/.test(e?.code ?? '')) return error;
  if (isConnectionFailure(error))
    return new StorageError(`The PostgreSQL database at ${describeTarget(url)} cannot be reached right now (it may be restarting). Try again in a moment.`, { cause: error, transient: true });
  switch (e.code) {
    case '42501':
      return new StorageError(`The PostgreSQL role in use may not do this at ${describeTarget(url)} (permission denied). Use the app's role (syntheo db roles) for changes to meetings.`, { cause: error });
    case '40001':
    case '40P01':
      return new StorageError('The database was busy with a conflicting change. Try again.', { cause: error });
    case '53100':
      return new StorageError(`The disk holding the PostgreSQL database at ${describeTarget(url)} is full.`, { cause: error });
    case '42P01':
    case '42703':
      return new StorageError('The database lacks part of the schema Syntheo needs. Run `syntheo doctor` to see what is missing and how to repair it.', { cause: error });
    default:
      return new StorageError(`The PostgreSQL database reported an error${e.code ? ` (${e.code})` : ''}.`, { cause: error });
  }
}
