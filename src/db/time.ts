/** All stored and printed times are fixed-width ISO 8601 UTC with milliseconds, so text order is time order. */
export function nowIso(): string {
  return new Date().toISOString();
}
