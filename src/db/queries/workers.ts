import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';

/** A worker renews its heartbeat this often... */
export const HEARTBEAT_INTERVAL_MS = 2_000;
/** ...and counts as alive (the app is "open") while its last heartbeat is this recent. */
export const HEARTBEAT_FRESH_MS = 15_000;

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
