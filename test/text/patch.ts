// The reader's side of a unified diff, for tests: what `patch` would make of it.

/**
 * Applies a unified diff the way `patch` does, checking every context and removed line and the
 * `\ No newline at end of file` markers; lines before `---` are ignored, as `patch` ignores them.
 */
export function applyPatch(before: string, diff: string): string {
  // Each line with its line end, so that a missing final newline survives.
  const lines = before === '' ? [] : before.split(/(?<=\n)/);
  const out: string[] = [];
  let at = 0;
  const all = diff.split('\n');
  const hunks = all.slice(all.findIndex((l) => l.startsWith('--- ')) + 2);
  for (let i = 0; i < hunks.length; i++) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(hunks[i]!);
    if (!header) continue;
    const countA = header[2] === undefined ? 1 : Number(header[2]);
    const startA = countA === 0 ? Number(header[1]) : Number(header[1]) - 1;
    while (at < startA) out.push(lines[at++]!);
    for (i++; i < hunks.length && /^[ +-]/.test(hunks[i]!); i++) {
      const line = hunks[i]!;
      const noNewline = hunks[i + 1] === '\\ No newline at end of file';
      const text = line.slice(1) + (noNewline ? '' : '\n');
      if (line[0] === '+') out.push(text);
      else {
        if (lines[at] !== text) throw new Error(`context mismatch at ${at}: ${line}`);
        if (line[0] === ' ') out.push(text);
        at++;
      }
      if (noNewline) i++;
    }
    i--;
  }
  while (at < lines.length) out.push(lines[at++]!);
  return out.join('');
}
