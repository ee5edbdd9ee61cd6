import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIFF_LIMITS, unifiedDiff } from '../../src/text/diff.js';
import { applyPatch } from './patch.js';

const text = fc
  .tuple(fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', '', '- item', '## Title'), { maxLength: 40 }), fc.boolean())
  .map(([l, newline]) => (l.length ? `${l.join('\n')}${newline ? '\n' : ''}` : ''));

/** `n` lines, each different from every line of another `prefix`. */
const lines = (prefix: string, n: number): string => Array.from({ length: n }, (_, i) => `${prefix} line ${i} ${'x'.repeat(40)}\n`).join('');

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

  it('shows a missing final newline instead of hiding the change', () => {
    expect(unifiedDiff('a\n', 'a', 'x')).toBe('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n');
  });

  it('is exact up to the edit limit', () => {
    const n = DIFF_LIMITS.maxEditLines / 2;
    // The time bound is lifted: this checks the edit bound, on a machine of any speed.
    const diff = unifiedDiff(lines('old', n), lines('new', n), 'f', 3, { ...DIFF_LIMITS, timeoutMs: 60_000 });
    expect(diff.startsWith('--- a/f\n')).toBe(true);
    expect(applyPatch(lines('old', n), diff)).toBe(lines('new', n));
  });

  it('beyond it, says so and shows the changed part removed then added, still a patch base -> proposed', () => {
    const base = `# Title\n\n${lines('old', 1500)}## End\n`;
    const proposed = `# Title\n\n${lines('new', 1500)}## End\n`;
    const diff = unifiedDiff(base, proposed, 'note.md');
    const out = diff.split('\n');
    expect(out[0]).toBe(
      `(The changes are too many to compare line by line: more than ${DIFF_LIMITS.maxEditLines} lines differ or the comparison took over ${DIFF_LIMITS.timeoutMs} ms. The changed part is shown removed, then added in full.)`,
    );
    expect(out.slice(1, 4)).toEqual(['--- a/note.md', '+++ b/note.md', '@@ -1,1503 +1,1503 @@']);
    expect(out[4]).toBe(' # Title');
    expect(out[6]).toBe(`-old line 0 ${'x'.repeat(40)}`);
    expect(out[1506]).toBe(`+new line 0 ${'x'.repeat(40)}`);
    expect(out.at(-2)).toBe(' ## End');
    expect(applyPatch(base, diff)).toBe(proposed);
  });

  it('lines moved around, each still present, also stop at the edit bound', () => {
    const base = lines('same', 600);
    const proposed = base.split(/(?<=\n)/).reverse().join('');
    const diff = unifiedDiff(base, proposed, 'f', 3, { ...DIFF_LIMITS, timeoutMs: 60_000 });
    expect(diff.startsWith('(The changes are too many to compare line by line')).toBe(true);
    expect(applyPatch(base, diff)).toBe(proposed);
  });

  it('a 1 MiB proposal with every line changed answers within the bounds, and patches', () => {
    const base = lines('old', 20_000);
    const proposed = lines('new', 20_000);
    expect(Buffer.byteLength(proposed)).toBeGreaterThan(1024 * 1024);
    const diff = unifiedDiff(base, proposed, 'note.md');
    expect(diff.startsWith('(The changes are too many')).toBe(true);
    expect(applyPatch(base, diff)).toBe(proposed);
  });

  it('a long pure addition or removal is exact whatever its length', () => {
    const base = `# Title\n${lines('kept', 3)}`;
    const proposed = `# Title\n${lines('added', 20_000)}${lines('kept', 3)}`;
    const diff = unifiedDiff(base, proposed, 'note.md');
    expect(diff.split('\n').slice(0, 4)).toEqual(['--- a/note.md', '+++ b/note.md', '@@ -1,4 +1,20004 @@', ' # Title']);
    expect(applyPatch(base, diff)).toBe(proposed);
    expect(unifiedDiff(proposed, base, 'note.md').split('\n')[2]).toBe('@@ -1,20004 +1,4 @@');
  });

  it('the fallback keeps missing final newlines visible', () => {
    const diff = unifiedDiff('a\nb', 'c\nd', 'x', 3, { maxEditLines: 1, timeoutMs: 1000 });
    expect(diff.split('\n').slice(1)).toEqual(['--- a/x', '+++ b/x', '@@ -1,2 +1,2 @@', '-a', '-b', '\\ No newline at end of file', '+c', '+d', '\\ No newline at end of file', '']);
    expect(applyPatch('a\nb', diff)).toBe('c\nd');
    fc.assert(
      fc.property(text, text, (a, b) => {
        const d = unifiedDiff(a, b, 'f', 3, { maxEditLines: 2, timeoutMs: 1000 });
        expect(d === '' ? a : applyPatch(a, d)).toBe(b);
      }),
      { numRuns: 500 },
    );
  });
});
