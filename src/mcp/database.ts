import type { Sqlite, SyntheoDb } from '../db/open.js';
import { StorageError, SyntheoError } from '../errors.js';
import type { Logger } from '../log.js';

/**
 * The database of one `syntheo mcp` process, opened (and created, SPEC §1) on the first request that
 * needs it: a client's discover probe, initialize and tools/list never pay for better-sqlite3 or the
 * schema check. A failed open is not remembered, so fixing the file or its permissions is enough.
 */
export class LazyDatabase {
  private db: SyntheoDb | undefined;
  private opening: Promise<SyntheoDb> | undefined;

  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {}

  async sqlite(): Promise<Sqlite> {
    if (this.db) return this.db.sqlite;
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return (await this.opening).sqlite;
  }

  private async open(): Promise<SyntheoDb> {
    const started = performance.now();
    const { openDatabase } = await import('../db/open.js');
    try {
      this.db = openDatabase(this.path, { create: true });
    } catch (error) {
      this.logger.error({ err: error, path: this.path }, 'cannot open the database');
      if (error instanceof SyntheoError) throw error;
      const code = (error as { code?: unknown } | null)?.code;
      throw new StorageError(
        `Cannot open the Syntheo database at ${this.path}${typeof code === 'string' ? ` (${code})` : ''}. Check that its folder exists or can be created and that you can read and write it, or point syntheo mcp to another file with --db or SYNTHEO_DB.`,
        { cause: error },
      );
    }
    this.logger.debug({ path: this.path, ms: Math.round(performance.now() - started) }, 'database open');
    return this.db;
  }

  /**
   * After a failed call: a connection that found the file read-only stays read-only for its whole
   * life (SQLite falls back to O_RDONLY at open), so it is dropped and the next call opens the file
   * afresh; making the file writable is then enough, as for a failed open.
   */
  discardAfter(error: unknown): void {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('SQLITE_READONLY') && code !== 'SQLITE_READONLY_DBMOVED') {
      this.logger.info({ path: this.path, code }, 'database connection dropped after a read-only failure; the next call reopens it');
      this.close();
    }
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}
