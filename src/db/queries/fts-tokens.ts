// search_fts's tokenizer (unicode61, remove_diacritics 2) on text it reads by its ASCII rules alone.

/** Characters beyond ASCII that unicode61 may put in a token (its token characters are L*, N* and Co; marks are folded away inside tokens). */
const BEYOND_ASCII_TOKEN = /(?![\0-\x7f])[\p{L}\p{N}\p{M}\p{Co}\p{Cn}]/u;
const NON_ASCII = /[^\0-\x7f]/;

/** No character of `text` beyond ASCII can be part of a token: its tokens are its runs of ASCII letters and digits, case folded. */
export const tokenizedAsAscii = (text: string): boolean => !(NON_ASCII.test(text) && BEYOND_ASCII_TOKEN.test(text));

const TOKEN_CHAR = new Uint8Array(128).map((_, c) => (/[A-Za-z0-9]/.test(String.fromCharCode(c)) ? 1 : 0));

/** Whether a UTF-16 code unit is part of a token of a tokenizedAsAscii text (an ASCII letter or digit; NaN past the end: no). */
export const isAsciiTokenChar = (c: number): boolean => c < 128 && TOKEN_CHAR[c] === 1;

/** The tokens of `text` as search_fts's tokenizer makes them, when tokenizedAsAscii; else undefined. */
export function asciiTokens(text: string): string[] | undefined {
  return tokenizedAsAscii(text) ? (text.toLowerCase().match(/[a-z0-9]+/g) ?? []) : undefined;
}
