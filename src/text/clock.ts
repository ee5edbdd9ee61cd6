// Times from the start of something, as people and models read them: the one place they are formatted.

/** `2:03` or `1:02:03`: a duration or a position in a recording (progress lines, Markdown transcripts). */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

/** `02:03`, or `01:02:03` from the first hour on: fixed-width turn stamps of transcript pages (no hours part before: it costs tokens on every turn). */
export function stamp(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  const mmss = `${two(Math.floor((total % 3600) / 60))}:${two(total % 60)}`;
  return total >= 3600 ? `${two(Math.floor(total / 3600))}:${mmss}` : mmss;
}
