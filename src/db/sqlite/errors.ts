import { StorageError } from '../../errors.js';

/** An error thrown by SQLite (better-sqlite3's SqliteError, or an open failure carrying an SQLITE_ code). */
export function isSqliteError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('SQLITE_');
}

/** SQLITE_BUSY or one of its extended codes: another connection holds the lock, and trying again may succeed. */
export const isBusy = (error: unknown): boolean => isSqliteError(error) && error.code.startsWith('SQLITE_BUSY');

/**
 * SQLite's error codes, mapped once (here) to a StorageError whose message says what to do:
 * busy/locked, disk full, read-only and corruption. Nothing above the Store sees an SQLite code.
 */
export function sqliteError(error: Error & { code: string }): StorageError {
  const code = error.code;
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
      if (/^no such (table|column)/.test(error.message))
        return new StorageError('The database lacks part of the schema Syntheo needs. Run `syntheo doctor` to see what is missing and how to repair it.', { cause: error });
      return new StorageError(`The database reported an error (${code}).`, { cause: error });
    default:
      if (code.startsWith('SQLITE_IOERR')) return new StorageError('The database could not be read or written (I/O error). Check the disk.', { cause: error });
      return new StorageError(`The database reported an error (${code}).`, { cause: error });
  }
}
