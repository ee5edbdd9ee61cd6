import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { HEARTBEAT_FRESH_MS } from '../model/workers.js';

export { HEARTBEAT_FRESH_MS, HEARTBEAT_INTERVAL_MS } from '../model/workers.js';

export interface WorkerStatus {
  id: string;
  hostname: string;
  pid: number;
  version: string;
  heartbeat_at: string;
  /** Milliseconds since the heartbeat, at the time of the query. */
  heartbeat_age_ms: number;
  alive: boolean;
}

/** The most recently heard-from worker that has not said it stopped, or null. */
export function latestWorker(sqlite: Sqlite, now = Date.now()): WorkerStatus | null {
  const row = stmt<Omit<WorkerStatus, 'heartbeat_age_ms' | 'alive'>>(
    sqlite,
    'SELECT id, hostname, pid, version, heartbeat_at FROM workers WHERE stopped_at IS NULL ORDER BY heartbeat_at DESC LIMIT 1',
  ).get();
  if (!row) return null;
  const age = now - Date.parse(row.heartbeat_at);
  return { ...row, heartbeat_age_ms: age, alive: age <= HEARTBEAT_FRESH_MS };
}

export function isWorkerAlive(sqlite: Sqlite, now = Date.now()): boolean {
  return latestWorker(sqlite, now)?.alive ?? false;
}
