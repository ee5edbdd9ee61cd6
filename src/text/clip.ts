// Shortening untrusted or long text for a message: the one helper for it (terminal tables use
// cli/text.ts `cut`, which also measures display width; answers cut by bytes use render/fit.ts).

/**
 * `text` cut to at most `max` code points, ending with `…` when cut; never splits a surrogate pair.
 * `oneLine` first folds every run of whitespace (newlines included) into one space.
 */
export function clip(text: string, max: number, options: { oneLine?: boolean } = {}): string {
  const s = options.oneLine ? text.replace(/\s+/g, ' ').trim() : text;
  // Fast path: a string of at most `max` UTF-16 units has at most `max` code points.
  if (s.length <= max) return s;
  const points = Array.from(s);
  return points.length <= max ? s : `${points.slice(0, Math.max(0, max - 1)).join('')}…`;
}
