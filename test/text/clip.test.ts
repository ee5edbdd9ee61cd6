import { describe, expect, it } from 'vitest';
import { clip } from '../../src/text/clip.js';
import { displayUrl } from '../../src/text/url.js';

describe('clip', () => {
  it('keeps short text, cuts long text to max code points ending with an ellipsis', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(Array.from(clip('x'.repeat(500), 120))).toHaveLength(120);
  });

  it('never splits a surrogate pair', () => {
    const cut = clip('😀😀😀😀', 3);
    expect(cut).toBe('😀😀…');
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  });

  it('folds whitespace into one line when asked', () => {
    expect(clip('a\n\n  b\tc ', 10, { oneLine: true })).toBe('a b c');
    expect(clip('a\nb', 10)).toBe('a\nb');
  });
});

describe('displayUrl', () => {
  it('drops credentials, query and fragment; says so for an invalid URL', () => {
    expect(displayUrl('https://user:pw@api.example/v1?key=sk-1#x')).toBe('https://api.example/v1');
    expect(displayUrl('not a url')).toBe('(invalid URL)');
  });
});
