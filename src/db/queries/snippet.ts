// A search hit's snippet and its first matched word, computed from the passage's text: FTS5's
// `snippet(search_fts, 0, '**', '**', '…', 24)` and the first mark of `highlight()`, as sqlite3.c computes them
// (fts5SnippetFunction, fts5SnippetScore, fts5SentenceFinderCb, fts5HighlightCb), for a query of single-token
// phrases. SQLite's search uses it where its tokens are exactly FTS5's (tokenizedAsAscii: the query's words and the
// passage's tokens ASCII letters and digits): snippet() and highlight() read each row's position lists again and
// tokenized its text twice (a page of 10 hits and its rows at 100k meetings: 0.17-0.36 ms, against 0.11-0.24 with the
// texts read and cut here). PostgreSQL's uses it too, with its own folding beyond ASCII, so that both engines cut and
// mark a passage alike (ts_headline chose other words, in ~0.3 ms a page).
import { isAsciiTokenChar, tokenizedAsAscii } from './fts-tokens.js';

/** Tokens a snippet holds at most (snippet()'s fifth argument). */
export const SNIPPET_TOKENS = 24;
const OPEN = '**';
const CLOSE = '**';
const ELLIPSIS = '…';

/** A token of the text: its span (UTF-16 offsets) and the index of the query word it is (-1: none). */
interface Token {
  start: number;
  end: number;
  word: number;
}

export interface Snippet {
  /** On one line: each run of line breaks (and the blanks around it) as one space. */
  snippet: string;
  /** The first matched token's word in the passage (words: the text split at single spaces), or null when none matched. */
  firstMatch: number | null;
}

/**
 * The tokens of a tokenizedAsAscii text (its runs of ASCII letters and digits, as search_fts's tokenizer makes them) and
 * which of `words` (distinct, lower case) each is, compared without copying the token (a regex and a copy a token cost
 * twice as much).
 */
function asciiTokensOf(text: string, words: string[]): Token[] {
  const tokens: Token[] = [];
  const isWord = (i: number) => isAsciiTokenChar(text.charCodeAt(i));
  const is = (start: number, end: number, word: string) => {
    if (word.length !== end - start) return false;
    for (let k = 0; k < word.length; k++) {
      const c = text.charCodeAt(start + k);
      if ((c >= 65 && c <= 90 ? c + 32 : c) !== word.charCodeAt(k)) return false;
    }
    return true;
  };
  for (let i = 0; i < text.length; ) {
    while (i < text.length && !isWord(i)) i++;
    if (i === text.length) break;
    const start = i;
    while (i < text.length && isWord(i)) i++;
    tokens.push({ start, end: i, word: words.findIndex((w) => is(start, i, w)) });
  }
  return tokens;
}

/** The tokens of any text: its runs of letters, digits and marks, folded by `fold` to be compared with `words`. */
function foldedTokensOf(text: string, words: string[], fold: (token: string) => string): Token[] {
  const tokens: Token[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)) tokens.push({ start: m.index, end: m.index + m[0].length, word: words.indexOf(fold(m[0])) });
  return tokens;
}

/** The first token of each sentence: the first token, and each one after blanks that follow `.` or `:` (fts5SentenceFinderCb). */
function sentenceStarts(text: string, tokens: Token[]): number[] {
  const starts: number[] = [];
  tokens.forEach((t, pos) => {
    if (pos === 0) return void starts.push(0);
    let i = t.start - 1;
    let c = '';
    for (; i >= 0; i--) {
      c = text[i]!;
      if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') break;
    }
    if (i !== t.start - 1 && (c === '.' || c === ':')) starts.push(pos);
  });
  return starts;
}

/**
 * The snippet of `text` for the query's `words` (distinct, folded). A tokenizedAsAscii text is tokenized as search_fts
 * does (SQLite calls it with no other); any other, as runs of letters, digits and marks folded by `fold` (PostgreSQL's
 * approximation of its own parser).
 */
export function snippetOf(text: string, words: string[], fold: (token: string) => string = (t) => t.toLowerCase(), size = SNIPPET_TOKENS): Snippet {
  const tokens = tokenizedAsAscii(text) ? asciiTokensOf(text, words) : foldedTokensOf(text, words, fold);
  const hits: number[] = [];
  for (let pos = 0; pos < tokens.length; pos++) if (tokens[pos]!.word >= 0) hits.push(pos);
  let firstMatch: number | null = null;
  if (hits.length > 0) {
    firstMatch = 0;
    for (let i = tokens[hits[0]!]!.start - 1; i >= 0; i--) if (text.charCodeAt(i) === 32) firstMatch++;
  }
  const cut = highlighted(text, tokens, hits, bestStart(text, tokens, hits, words.length, size), size);
  return { snippet: cut.includes('\n') ? cut.replace(/\s*\n+\s*/g, ' ') : cut, firstMatch };
}

/**
 * The first token of the best window of `size` tokens (fts5SnippetFunction): each match scored as the start of a window
 * centred on the matches it holds (1000 for each word's first match in it, 1 for each other), and the start of its
 * sentence, when that is before it, scored with a bonus (100, 120 for the text's first sentence); the first best wins.
 */
function bestStart(text: string, tokens: Token[], hits: number[], wordCount: number, size: number): number {
  const count = tokens.length;
  // fts5SnippetScore: the score of the window from `from`, and that window moved to centre its matches.
  const score = (from: number): { score: number; centred: number } => {
    const seen = new Uint8Array(wordCount);
    let [total, first, last] = [0, -1, 0];
    for (const pos of hits) {
      if (pos < from || pos >= from + size) continue;
      const word = tokens[pos]!.word;
      total += seen[word] ? 1 : 1000;
      seen[word] = 1;
      if (first < 0) first = pos;
      last = pos + 1;
    }
    let centred = first - Math.trunc((size - (last - first)) / 2);
    if (centred + size > count) centred = count - size;
    return { score: total, centred: Math.max(0, centred) };
  };
  // (Only a text longer than the window has a sentence to start it from.)
  const sentences = count > size ? sentenceStarts(text, tokens) : [];
  let [best, start] = [0, 0];
  for (const pos of hits) {
    const own = score(pos);
    if (own.score > best) [best, start] = [own.score, own.centred];
    if (sentences.length === 0) continue;
    let j = 0;
    while (j < sentences.length - 1 && sentences[j + 1]! <= pos) j++;
    const sentence = sentences[j]!;
    if (sentence < pos) {
      const total = score(sentence).score + (sentence === 0 ? 120 : 100);
      if (total > best) [best, start] = [total, sentence];
    }
  }
  return start;
}

/** The window of `size` tokens from `start`, its matches marked, with an ellipsis where the text goes on (fts5HighlightCb). */
function highlighted(text: string, tokens: Token[], hits: number[], start: number, size: number): string {
  const end = start + size - 1;
  let out = start > 0 ? ELLIPSIS : '';
  let [copied, open] = [0, false];
  // The next match at or after the window's start (each match is one token: a mark opens and closes on it).
  let next = hits.findIndex((pos) => pos >= start);
  if (next < 0) next = hits.length;
  for (let pos = start; pos <= end && pos < tokens.length; pos++) {
    const t = tokens[pos]!;
    if (start > 0 && pos === start) copied = t.start;
    const match = next < hits.length ? hits[next]! : -1;
    if (open && (pos <= match || match < 0) && t.start > copied) {
      out += CLOSE;
      open = false;
    }
    if (pos === match) {
      if (!open) {
        out += text.slice(copied, t.start) + OPEN;
        copied = t.start;
        open = true;
      }
      out += text.slice(copied, t.end);
      copied = t.end;
      next++;
    }
    if (pos === end) {
      if (open) out += CLOSE;
      open = false;
      out += text.slice(copied, t.end);
      copied = t.end;
    }
  }
  if (open) out += CLOSE;
  return out + (end >= tokens.length - 1 ? text.slice(copied) : ELLIPSIS);
}
