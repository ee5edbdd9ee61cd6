// Matching text typed by people and models against stored text, whatever the Unicode form (NFC from
// most keyboards, NFD from macOS file names and some clients) and the case beyond ASCII. Native SQLite
// only: the trigram indexes already fold case for any script; LIKE and NOCASE fold ASCII only, so a
// non-ASCII fragment becomes its spellings (LIKE) or a GLOB with each letter's cases as a class
// (`[éÉ]`). No function of ours runs per row, and the database stays writable by tools that do not
// have one (drizzle studio).

/** The text in NFC and in NFD (the same string twice for most text): stored text may be in either form. */
export function unicodeForms(text: string): [nfc: string, nfd: string] {
  return [text.normalize('NFC'), text.normalize('NFD')];
}

// eslint-disable-next-line no-control-regex
const ASCII = /^[\u0000-\u007f]*$/;
export const isAscii = (text: string): boolean => ASCII.test(text);

// The one letter whose lower case depends on its place in the word (final ς), folded together.
const SIGMA = 'Σσς';

/**
 * A GLOB pattern matching `text` literally with every letter in any case: `Café` -> `[cC][aA][fF][éÉ]`.
 * `contains`: anywhere in the value (`*...*`), else the whole value. GLOB's own `*`, `?` and `[` are
 * made literal (`[*]`).
 */
export function caselessGlob(text: string, contains: boolean): string {
  let out = '';
  for (const ch of text) {
    const cases = casesOf(ch);
    if (cases.length > 1) out += `[${cases.join('')}]`;
    else out += ch === '*' || ch === '?' || ch === '[' ? `[${ch}]` : ch;
  }
  return contains ? `*${out}*` : out;
}

/** The single-character cases of a character: `é` -> é, É. */
export function casesOf(ch: string): string[] {
  return [...new Set([ch, ch.toLowerCase(), ch.toUpperCase(), ch.toUpperCase().toLowerCase(), ...(SIGMA.includes(ch) ? SIGMA : '')])].filter((c) => [...c].length === 1);
}

/**
 * The spellings of a short fragment for LIKE, which folds ASCII case itself: every case of its
 * non-ASCII letters, in both Unicode forms (`Ré` -> Ré, RÉ, Re + U+0301). LIKE scans a column several
 * times faster than a GLOB with classes. Undefined past `max` spellings (then use caselessGlob).
 */
export function likeSpellings(text: string, max = 16): string[] | undefined {
  const out = new Set<string>();
  for (const form of new Set(unicodeForms(text))) {
    let partial = [''];
    for (const ch of form) {
      const cases = isAscii(ch) ? [ch] : casesOf(ch);
      partial = partial.flatMap((p) => cases.map((c) => p + c));
      if (partial.length > max) return undefined;
    }
    for (const p of partial) out.add(p);
  }
  return out.size > max ? undefined : [...out];
}
