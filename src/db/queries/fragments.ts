// A user's fragment as SQL that matches it the way list_meetings promises (a case-insensitive
// substring, whatever the Unicode form): a trigram FTS5 phrase from 3 characters, LIKE or GLOB below.
import { likeFragment } from '../statements.js';
import { gramToken, lowerAscii, quoteToken } from './list-index.js';
import { casesOf, caselessGlob, isAscii, likeSpellings, unicodeForms } from './unicode.js';

/** A condition: one of the columns holds one of the fragment's spellings (short fragments beyond ASCII). */
export function anySpelling(fragment: string, columns: string[]): { sql: string; values: string[] } {
  const variants = likeSpellings(fragment);
  if (variants === undefined) {
    const globs = unicodeForms(fragment).map((form) => caselessGlob(form, true));
    return { sql: `(${columns.flatMap((c) => globs.map(() => `${c} GLOB ?`)).join(' OR ')})`, values: columns.flatMap(() => globs) };
  }
  const likes = variants.map(likeFragment);
  return { sql: `(${columns.flatMap((c) => likes.map(() => `${c} LIKE ? ESCAPE '\\'`)).join(' OR ')})`, values: columns.flatMap(() => likes) };
}

/**
 * A fragment as FTS5 trigram phrases (a substring match), in NFC and NFD since stored text may be in
 * either form; undefined when shorter than 3 characters.
 */
export function trigramMatch(fragment: string): string | undefined {
  const [nfc, nfd] = unicodeForms(fragment);
  if ([...nfc].length < 3) return undefined;
  return [...new Set([nfc, nfd])].map((f) => `"${f.replace(/"/g, '""')}"`).join(' OR ');
}

/** Spellings of a short fragment looked up in meeting_terms at most (more: the titles are scanned as before). */
const MAX_GRAM_SPELLINGS = 64;

/**
 * A short fragment beyond ASCII as FTS5 expressions over meeting_terms' grams (migration 0014): the spellings
 * anySpelling accepts (each case of each letter beyond ASCII, in NFC and NFD; ASCII letters lowercased, as
 * LIKE folds them), each as its gram when it has 1 or 2 code points (`exact`: a meeting holds the gram exactly
 * when its title or id holds the spelling), else as all its pairs (`loose`: a candidate, which anySpelling
 * then checks). Undefined past MAX_GRAM_SPELLINGS spellings, when a spelling is all ASCII, or for what LIKE reads as U+FFFD.
 */
export function spellingGrams(fragment: string): { exact: string; loose?: string } | undefined {
  // LIKE reads a surrogate stored from a lone one, U+FFFE and U+FFFF as U+FFFD (sqlite3Utf8Read), the grams by their bytes.
  if (/[\uD800-\uDFFF\uFFFD-\uFFFF]/u.test(fragment)) return undefined;
  const spellings = new Set<string>();
  for (const form of new Set(unicodeForms(fragment))) {
    let partial = [''];
    for (const ch of form) {
      const cases = [...new Set((isAscii(ch) ? [ch] : casesOf(ch)).map(lowerAscii))];
      partial = partial.flatMap((p) => cases.map((c) => p + c));
      if (partial.length > MAX_GRAM_SPELLINGS) return undefined;
    }
    for (const p of partial) spellings.add(p);
  }
  if (spellings.size > MAX_GRAM_SPELLINGS) return undefined;
  const exact: string[] = [];
  const loose: string[] = [];
  for (const spelling of spellings) {
    // An ASCII spelling (the Kelvin sign's `k`, the long s's `S`): its `x` gram is in ids too, which this condition never read.
    if (isAscii(spelling)) return undefined;
    const points = Array.from(spelling);
    if (points.length <= 2) exact.push(quoteToken(gramToken(spelling)));
    else loose.push(`(${[...new Set(points.slice(1).map((p, i) => quoteToken(gramToken(points[i]! + p))))].join(' AND ')})`);
  }
  if (exact.length === 0) return undefined;
  const or = (xs: string[]) => `(${[...new Set(xs)].join(' OR ')})`;
  return { exact: or(exact), ...(loose.length > 0 && { loose: or(loose) }) };
}
