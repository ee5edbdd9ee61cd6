/**
 * The domain's one error family. Surfaces map it: src/mcp/errors.ts to JSON-RPC codes,
 * src/cli to exit codes. Messages are for the person or the model reading them: they name
 * the thing and say what to do next, and never carry SQL, stack traces or file contents.
 */
export type ErrorKind =
  | 'not_found' // an id or path that does not exist -> MCP -32602, exit 2
  | 'invalid' // input that cannot be accepted -> MCP -32603, exit 1 (64 for CLI usage)
  | 'conflict' // valid input that clashes with the current state -> MCP -32603, exit 1
  | 'unavailable' // the app (worker) or a server is not there -> MCP -32603, exit 1
  | 'no_database' // read-only command, database missing -> exit 3
  | 'exists' // export target exists -> exit 4
  | 'storage' // database failure -> MCP -32603, exit 1
  | 'internal'; // a bug: safe message, details in the log -> MCP -32603, exit 1

export class SyntheoError extends Error {
  override readonly name: string = 'SyntheoError';
  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class NotFoundError extends SyntheoError {
  override readonly name = 'NotFoundError';
  constructor(message: string) {
    super('not_found', message);
  }
}

export class InvalidInputError extends SyntheoError {
  override readonly name = 'InvalidInputError';
  constructor(message: string) {
    super('invalid', message);
  }
}

export class ConflictError extends SyntheoError {
  override readonly name = 'ConflictError';
  constructor(message: string) {
    super('conflict', message);
  }
}

export class UnavailableError extends SyntheoError {
  override readonly name = 'UnavailableError';
  constructor(message: string) {
    super('unavailable', message);
  }
}

export class StorageError extends SyntheoError {
  override readonly name = 'StorageError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('storage', message, options);
  }
}

export class NoDatabaseError extends SyntheoError {
  override readonly name = 'NoDatabaseError';
  constructor(readonly path: string) {
    super(
      'no_database',
      `No Syntheo database at ${path}. Create one with \`syntheo demo\` (sample data) or by starting \`syntheo mcp\` or \`syntheo-worker\`, or point to another one with --db or SYNTHEO_DB.`,
    );
  }
}

export function isSyntheoError(error: unknown): error is SyntheoError {
  return error instanceof SyntheoError;
}

/**
 * Turns an unexpected error (SQLite, I/O) into a SyntheoError whose message is safe to show.
 * SQLite busy/locked, disk full, read-only and corruption get a message that says what to do.
 */
export function toSyntheoError(error: unknown): SyntheoError {
  if (error instanceof SyntheoError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'SQLITE_BUSY':
    case 'SQLITE_BUSY_SNAPSHOT':
    case 'SQLITE_LOCKED':
      return new StorageError('The database is busy (another Syntheo process holds a long write). Try again in a moment.', { cause: error });
    case 'SQLITE_FULL':
      return new StorageError('The disk holding the database is full. Free some space and try again; nothing was written.', { cause: error });
    case 'SQLITE_READONLY_DIRECTORY':
      return new StorageError(
        "The folder holding the database is read-only: SQLite cannot create the database's -wal and -shm files there. Make the folder writable by the user running Syntheo, then try again.",
        { cause: error },
      );
    case 'SQLITE_READONLY_DBMOVED':
      return new StorageError(
        'The database file was moved, renamed or deleted while Syntheo had it open; nothing was saved. Restart Syntheo (for syntheo mcp, the MCP client) so that it opens the database where it is now.',
        { cause: error },
      );
    case 'SQLITE_READONLY':
    case 'SQLITE_READONLY_RECOVERY':
    case 'SQLITE_READONLY_CANTLOCK':
    case 'SQLITE_READONLY_CANTINIT':
    case 'SQLITE_READONLY_ROLLBACK':
      return new StorageError(
        'The database is read-only for this process: it can be read, but nothing can be saved. Make the database file (and its -wal and -shm files, if present) writable by the user running Syntheo, then try again.',
        { cause: error },
      );
    case 'SQLITE_CANTOPEN':
      return new StorageError('The database file cannot be opened: it is missing, or a folder on its path cannot be entered. Check the path and its permissions.', { cause: error });
    case 'SQLITE_CORRUPT':
    case 'SQLITE_NOTADB':
      return new StorageError('The database file is damaged or is not a Syntheo database. Restore it from a backup or point to another one with --db.', { cause: error });
    case 'SQLITE_IOERR':
      return new StorageError('The database could not be read or written (I/O error). Check the disk.', { cause: error });
    case 'SQLITE_CORRUPT_VTAB':
      return new StorageError('The search index of the database is damaged (the meetings are not). Rebuild it with `syntheo doctor --repair-search`, then try again.', { cause: error });
    case 'SQLITE_ERROR':
      // A table or column the code needs is not in the file: changed by another program, or another version.
      if (/^no such (table|column)/.test((error as Error).message))
        return new StorageError('The database lacks part of the schema Syntheo needs. Run `syntheo doctor` to see what is missing and how to repair it.', { cause: error });
      return new StorageError(`The database reported an error (${code}).`, { cause: error });
    default:
      if (typeof code === 'string' && code.startsWith('SQLITE_IOERR'))
        return new StorageError('The database could not be read or written (I/O error). Check the disk.', { cause: error });
      if (typeof code === 'string' && code.startsWith('SQLITE_'))
        return new StorageError(`The database reported an error (${code}).`, { cause: error });
      return new SyntheoError('internal', 'Unexpected internal error.', { cause: error });
  }
}
