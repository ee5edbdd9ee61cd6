import { describe, expect, it } from 'vitest';
import { Html, escapeHtml, html, join, query } from '../../src/app/html.js';

describe('the html tag', () => {
  it('escapes every interpolated string, in text and in attributes', () => {
    const title = `<script>alert("x")</script> & 'quotes'`;
    const out = html`<a title="${title}">${title}</a>`.value;
    expect(out).toBe(
      '<a title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;</a>',
    );
  });

  it('keeps nested Html as is, escapes lists item by item, drops null, undefined and booleans', () => {
    const items = ['<b>', html`<i>ok</i>`, null, undefined, false, 3];
    expect(html`<p>${items}</p>`.value).toBe('<p>&lt;b&gt;<i>ok</i>3</p>');
    expect(join(['a<', 'b'], html`<br>`).value).toBe('a&lt;<br>b');
  });

  it('cannot be forged from a string', () => {
    expect(() => new Html('<script>', Symbol('html'))).toThrow(TypeError);
    // An object that looks like Html is escaped like any other value.
    const fake = { value: '<script>', toString: () => '<script>' } as unknown as string;
    expect(html`${fake}`.value).toBe('&lt;script&gt;');
  });

  it('builds query strings with encoded values', () => {
    expect(query({ q: 'a&b "c"', page: 2, empty: '', none: undefined })).toBe('?q=a%26b+%22c%22&page=2');
    expect(escapeHtml(query({ a: '1', b: '2' }))).toBe('?a=1&amp;b=2');
  });
});
