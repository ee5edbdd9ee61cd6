/** All stored and printed times are fixed-width ISO 8601 UTC with milliseconds, so text order is time order. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Normalises any parseable date or date-time to the stored form; undefined when unparseable. */
export function normalizeIso(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  // A bare date means midnight UTC, as Date.parse reads it.
  const ms = Date.parse(trimmed);
  if (!Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString();
}
