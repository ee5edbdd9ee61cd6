import type { Client } from 'pg';

export const JOBS_CHANNEL = 'syntheo_jobs';

/**
 * Wakes an idle worker as soon as a job is queued: one dedicated connection LISTENs on syntheo_jobs
 * (migration 0002 notifies on every job that becomes queued). The worker still polls, as a fallback,
 * so a lost connection only slows pick-up down; the listener reconnects by itself (backoff up to
 * 5 s) and wakes its waiters after reconnecting, since a notification may have been missed meanwhile.
 */
export class JobWaker {
  private client: Client | undefined;
  private waiters = new Set<() => void>();
  private pending = false;
  private closed = false;
  private retryMs = 250;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly url: string) {}

  /** Resolves once listening, or throws the first connection error (the caller then relies on polling; reconnects continue). */
  async start(): Promise<void> {
    await this.connect();
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  private async connect(): Promise<void> {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: this.url, application_name: 'syntheo-listen', connectionTimeoutMillis: 10_000 });
    const lost = () => {
      if (this.client === client) this.client = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => {});
      this.schedule();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => this.wake());
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}`);
    } catch (error) {
      client.removeAllListeners();
      client.on('error', () => {});
      await client.end().catch(() => {});
      this.schedule();
      throw error;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.retryMs = 250;
    // Jobs queued while we were not listening: let the waiters look.
    this.wake();
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.connect().catch(() => {});
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 5_000);
  }

  private wake(): void {
    if (this.waiters.size === 0) {
      this.pending = true;
      return;
    }
    for (const w of [...this.waiters]) w();
  }

  /** Resolves on the next notification (or one that came since the last wait), or after `ms`. */
  wait(ms: number, signal?: AbortSignal): Promise<'notified' | 'timeout'> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve('notified');
    }
    return new Promise((resolve) => {
      const finish = (how: 'notified' | 'timeout') => {
        clearTimeout(timer);
        this.waiters.delete(onWake);
        signal?.removeEventListener('abort', onAbort);
        resolve(how);
      };
      const onWake = () => finish('notified');
      const onAbort = () => finish('timeout');
      const timer = setTimeout(() => finish('timeout'), ms);
      this.waiters.add(onWake);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    for (const w of [...this.waiters]) w();
    const c = this.client;
    this.client = undefined;
    if (c) {
      c.removeAllListeners('end');
      c.removeAllListeners('error');
      c.on('error', () => {});
      await c.end().catch(() => {});
    }
  }
}
