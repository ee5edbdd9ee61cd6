import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unifiedDiff } from '../../src/text/diff.js';

/** Applies a unified diff the way `patch` does, checking every context and removed line. */
function applyPatch(before: string, diff: string): string {
  const lines = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let at = 0;
  const hunks = diff.split('\n').slice(2);
  for (let i = 0; i < hunks.length; i++) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$/.exec(hunks[i]!);
    if (!header) continue;
    const countA = header[2] === undefined ? 1 : Number(header[2]);
    const startA = countA === 0 ? Number(header[1]) : Number(header[1]) - 1;
    while (at < startA) out.push(lines[at++]!);
    for (i++; i < hunks.length && /^[ +-]/.test(hunks[i]!); i++) {
      const line = hunks[i]!;
      if (line[0] === '+') out.push(line.slice(1));
      else {
        if (lines[at] !== line.slice(1)) throw new Error(`context mismatch at ${at}: ${line}`);
        if (line[0] === ' ') out.push(line.slice(1));
        at++;
      }
    }
    i--;
  }
  while (at < lines.length) out.push(lines[at++]!);
  return out.length ? `${out.join('\n')}\n` : '';
}

const text = fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', '', '- item', '## Title'), { maxLength: 40 }).map((l) => (l.length ? `${l.join('\n')}\n` : ''));

describe('unifiedDiff', () => {
  it('prints a readable hunk', () => {
    expect(unifiedDiff('# Notes\n\n- a\n- b\n', '# Notes\n\n- a\n- c\n', 'note.md')).toBe('--- a/note.md\n+++ b/note.md\n@@ -1,4 +1,4 @@\n # Notes\n \n - a\n-- b\n+- c\n');
  });

  it('is empty for identical texts, and a pure addition from nothing', () => {
    expect(unifiedDiff('same\n', 'same\n', 'x')).toBe('');
    expect(unifiedDiff('', 'new\n', 'x')).toBe('--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+new\n');
  });

  it('always patches the base into the proposal', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const diff = unifiedDiff(a, b, 'f');
        expect(diff === '' ? a : applyPatch(a, diff)).toBe(b);
      }),
      { numRuns: 500 },
    );
  });
});
