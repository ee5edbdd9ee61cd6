import { InvalidInputError } from '../errors.js';
import { HEARTBEAT_FRESH_MS, HEARTBEAT_INTERVAL_MS } from '../db/model/workers.js';
import type { RetryPolicy } from './clients/http.js';

// Timing knobs of the worker. The defaults suit everyone; the environment variables exist for tests
// and for unusual set-ups (documented in the README as tuning knobs, not as settings).

export interface WorkerTuning {
  /** A held job is interrupted for good when its lease runs out (SYNTHEO_WORKER_LEASE_MS). */
  leaseMs: number;
  /** Leases and the heartbeat are renewed this often. */
  renewMs: number;
  /** Idle polling for queued jobs (SYNTHEO_WORKER_POLL_MS). */
  pollMs: number;
  /** Expired leases of dead workers are written down as interrupted this often. */
  sweepMs: number;
  /** In-flight jobs may finish during this long after SIGTERM/SIGINT (SYNTHEO_WORKER_GRACE_MS, --grace-seconds). */
  graceMs: number;
  /** Retries of transient HTTP failures inside a job (SYNTHEO_HTTP_RETRIES, SYNTHEO_HTTP_RETRY_BASE_MS, SYNTHEO_HTTP_RETRY_MAX_MS). */
  retry: Partial<RetryPolicy>;
  /** Watched folders: a file is imported once its size and mtime held this long (SYNTHEO_WATCH_STABLE_MS). */
  watchStableMs: number;
  /** Watched folders: full rescan period, beside fs.watch (SYNTHEO_WATCH_RESCAN_MS). */
  watchRescanMs: number;
}

export const DEFAULT_LEASE_MS = 60_000;
export const DEFAULT_POLL_MS = 1_000;
export const DEFAULT_GRACE_MS = 30_000;

function readMs(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max)
    throw new InvalidInputError(`Environment variable ${name} must be a whole number from ${min} to ${max}, got "${raw}".`);
  return Number(raw);
}

export function readTuning(env: NodeJS.ProcessEnv, overrides: { graceMs?: number } = {}): WorkerTuning {
  const leaseMs = readMs(env, 'SYNTHEO_WORKER_LEASE_MS', DEFAULT_LEASE_MS, 300, 86_400_000);
  // Several renewals fit in one lease, and the heartbeat stays well inside HEARTBEAT_FRESH_MS.
  const renewMs = Math.max(50, Math.min(HEARTBEAT_INTERVAL_MS, Math.floor(leaseMs / 4), Math.floor(HEARTBEAT_FRESH_MS / 4)));
  return {
    leaseMs,
    renewMs,
    pollMs: readMs(env, 'SYNTHEO_WORKER_POLL_MS', DEFAULT_POLL_MS, 10, 600_000),
    sweepMs: Math.min(15_000, Math.max(100, Math.floor(leaseMs / 2))),
    graceMs: overrides.graceMs ?? readMs(env, 'SYNTHEO_WORKER_GRACE_MS', DEFAULT_GRACE_MS, 0, 86_400_000),
    watchStableMs: readMs(env, 'SYNTHEO_WATCH_STABLE_MS', 5_000, 0, 3_600_000),
    watchRescanMs: readMs(env, 'SYNTHEO_WATCH_RESCAN_MS', 10_000, 50, 3_600_000),
    retry: {
      retries: readMs(env, 'SYNTHEO_HTTP_RETRIES', 4, 0, 100),
      baseDelayMs: readMs(env, 'SYNTHEO_HTTP_RETRY_BASE_MS', 1_000, 0, 600_000),
      maxDelayMs: readMs(env, 'SYNTHEO_HTTP_RETRY_MAX_MS', 30_000, 0, 3_600_000),
    },
  };
}
