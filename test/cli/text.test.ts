// The helpers every human output goes through: neutralise, display width, truncation, plurals, suggestions.
import { describe, expect, it } from 'vitest';
import { neutralise, paint, toTerminal, wantsColour } from '../../src/cli/terminal.js';
import { cut, pageFooter, plural, table, width } from '../../src/cli/text.js';
import { closest } from '../../src/cli/framework.js';

/** Half of an emoji: what slicing UTF-16 code units leaves. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('neutralise()', () => {
  it('keeps newlines and tabs, turns \\r\\n into a newline, shows the rest, and is idempotent', () => {
    expect(neutralise('a\tb\r\nc\n')).toBe('a\tb\nc\n');
    expect(neutralise('\x00\x08\r\x1b[2K\x7f\x85\u202e')).toBe('␀␈␍␛[2K␡<U+0085><U+202E>');
    expect(neutralise(neutralise('x\r\x1b[1Ay\u009b'))).toBe(neutralise('x\r\x1b[1Ay\u009b'));
    expect(neutralise('Réunion 会議 👩‍👩‍👧')).toBe('Réunion 会議 👩‍👩‍👧');
  });

  it('colour comes only from paint(): an escape in the text stays visible even with colour on', () => {
    const c = paint(true);
    expect(toTerminal(`${c.red('-old')} \x1b[32mfake`, true)).toBe('\x1b[31m-old\x1b[39m ␛[32mfake');
    expect(toTerminal(`${c.red('-old')}`, false)).toBe('-old');
  });
});

describe('wantsColour()', () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  it('follows the flags, FORCE_COLOR, NO_COLOR, TERM=dumb, then the terminal', () => {
    expect(wantsColour(tty, {})).toBe(true);
    expect(wantsColour(pipe, {})).toBe(false);
    expect(wantsColour(tty, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColour(tty, { NO_COLOR: '' })).toBe(true);
    expect(wantsColour(tty, { TERM: 'dumb' })).toBe(false);
    expect(wantsColour(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(wantsColour(pipe, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(wantsColour(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(wantsColour(pipe, {}, true)).toBe(true);
    expect(wantsColour(tty, { FORCE_COLOR: '1' }, false)).toBe(false);
  });
});

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

describe('width and cut', () => {
  it('measures CJK and emoji as two columns', () => {
    expect(width('会議')).toBe(4);
    expect(width('👩‍👩‍👧')).toBe(2);
    expect(width('Café')).toBe(4);
  });

  it('never splits a grapheme: no lone surrogate, no half family emoji', () => {
    const s = 'ab👩‍👩‍👧👍🏽cd';
    for (let max = 1; max <= width(s); max++) {
      const out = cut(s, max);
      expect(width(out)).toBeLessThanOrEqual(max);
      expect(out).not.toMatch(LONE_SURROGATE);
      // What is kept is whole graphemes of the original, from its start.
      const kept = [...graphemes.segment(out.replace(/…$/, ''))].map((x) => x.segment);
      expect(kept).toEqual([...graphemes.segment(s)].map((x) => x.segment).slice(0, kept.length));
    }
    expect(cut('ab👩‍👩‍👧cd', 4)).toBe('ab…');
    expect(cut('ab👩‍👩‍👧cd', 5)).toBe('ab👩‍👩‍👧…');
  });

  it('aligns a table of CJK and ASCII cells', () => {
    const out = table([{ p: '会議/設計' }, { p: 'Design' }], [{ header: 'PATH', value: (r) => r.p }, { header: 'N', value: () => '1', align: 'right' }]);
    const lines = out.split('\n');
    // 会議/設計 takes 9 columns: every line ends in the same column.
    expect(lines.map((l) => width(l))).toEqual([12, 12, 12]);
    expect(lines[2]).toBe('Design     1');
  });
});

describe('plurals', () => {
  it('one helper for counts and list footers', () => {
    expect(plural(1, 'proposal')).toBe('1 proposal');
    expect(plural(0, 'proposal')).toBe('0 proposals');
    expect(plural(2, ['match', 'matches'])).toBe('2 matches');
    expect(pageFooter({ offset: 0, limit: 20, returned: 1, total: 1 }, 'proposal')).toBe('1 proposal.');
    expect(pageFooter({ offset: 5, limit: 20, returned: 0, total: 1 }, 'proposal')).toBe('No proposals at offset 5 (there is 1).');
  });
});

describe('closest()', () => {
  it('suggests a near word, a prefix or another case, and nothing for a far one', () => {
    expect(closest('lst', ['list', 'get'])).toBe('list');
    expect(closest('meeting', ['meetings', 'mcp'])).toBe('meetings');
    expect(closest('--limt', ['--limit', '--offset'])).toBe('--limit');
    expect(closest('-v', ['-V', '-h'])).toBe('-V');
    expect(closest('--bogus', ['--db', '--json', '--help'])).toBeUndefined();
  });
});
