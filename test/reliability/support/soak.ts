// One switch for the whole reliability suite: bounded in `npm test`, long with `npm run test:soak`.
//   SYNTHEO_SOAK_SECONDS=N   each soak-capable test runs for about N seconds (loops until the deadline)
//   SYNTHEO_FC_SEED=S        replays a fast-check run (the seed is printed when a property fails)
// Without SYNTHEO_SOAK_SECONDS the tests run a fixed, small number of iterations.

const raw = Number(process.env.SYNTHEO_SOAK_SECONDS ?? '');
/** Seconds each soak test runs for; 0 in the bounded suite. */
export const SOAK_SECONDS = Number.isFinite(raw) && raw > 0 ? raw : 0;
export const soaking = SOAK_SECONDS > 0;

/** Test timeout: the bounded one, or the soak duration plus room to set up and check. */
export function timeoutMs(boundedMs: number): number {
  return soaking ? SOAK_SECONDS * 1000 + Math.max(boundedMs, 120_000) : boundedMs;
}

/**
 * Loop control: `more(i)` is true while iteration i should run: i < bounded in npm test; in a soak,
 * until the deadline (and at least `bounded` times).
 */
export function iterations(bounded: number): { more(i: number): boolean; readonly deadline: number } {
  const deadline = Date.now() + SOAK_SECONDS * 1000;
  return { deadline, more: (i) => i < bounded || (soaking && Date.now() < deadline) };
}

/** A fixed period: `boundedMs` in npm test, the soak duration in a soak. */
export function periodMs(boundedMs: number): number {
  return soaking ? SOAK_SECONDS * 1000 : boundedMs;
}

/** fast-check parameters: `numRuns` runs, or as many as fit in the soak duration. */
export function fcParams(numRuns: number): { numRuns: number; seed?: number; interruptAfterTimeLimit?: number; markInterruptAsFailure?: boolean } {
  const seed = process.env.SYNTHEO_FC_SEED ? Number(process.env.SYNTHEO_FC_SEED) : undefined;
  const base = seed !== undefined ? { seed } : {};
  if (!soaking) return { ...base, numRuns };
  return { ...base, numRuns: 1_000_000_000, interruptAfterTimeLimit: SOAK_SECONDS * 1000, markInterruptAsFailure: false };
}
