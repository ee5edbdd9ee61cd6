import type { Store } from '../db/store.js';
import type { Logger } from '../log.js';
import { logSchemaNotices } from '../db/model/schema-notice.js';

/**
 * The Store of one `syntheo mcp` process, made by the first request that needs it: a client's discover
 * probe, initialize and tools/list never load the engine (better-sqlite3, the query modules, the schema
 * check). The Store is lazy too: it opens (and creates, SPEC §1) the database on its first call, does
 * not remember a failed open, and drops a connection that found the file read-only, so fixing the file
 * or its permissions is enough for the next call to succeed. On PostgreSQL it is warm: the connections and
 * statistics its searches use are made and read ahead of use, from that first call on (OpenStoreOptions.warm).
 */
export class StoreOnFirstUse {
  private store: Store | undefined;
  private making: Promise<Store> | undefined;

  constructor(
    readonly location: string,
    private readonly logger: Logger,
  ) {}

  get(): Promise<Store> {
    if (this.store) return Promise.resolve(this.store);
    return (this.making ??= this.make().finally(() => (this.making = undefined)));
  }

  private async make(): Promise<Store> {
    const started = performance.now();
    const { openStore } = await import('../db/engine.js');
    this.store = await openStore(this.location, { create: true, lazy: true, warm: true, onSchema: logSchemaNotices(this.logger) });
    this.logger.debug({ engine: this.store.engine, location: this.store.location, ms: Math.round(performance.now() - started) }, 'store loaded');
    return this.store;
  }

  async close(): Promise<void> {
    const store = this.store ?? (await this.making?.catch(() => undefined));
    this.store = undefined;
    await store?.close();
  }
}
