// A user's fragment as SQL that matches it the way list_meetings promises (a case-insensitive
// substring, whatever the Unicode form): a trigram FTS5 phrase from 3 characters, LIKE or GLOB below.
import { likeFragment } from '../statements.js';
import { caselessGlob, likeSpellings, unicodeForms } from './unicode.js';

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
