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

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}
