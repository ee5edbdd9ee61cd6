// A search hit's snippet and its first matched word, computed from the passage's text: FTS5's
// `snippet(search_fts, 0, '**', '**', '…', 24)` and the first mark of `highlight()`, as sqlite3.c computes them
// (fts5SnippetFunction, fts5SnippetScore, fts5SentenceFinderCb, fts5HighlightCb), for a query of single-token
// phrases. SQLite's search uses it where its tokens are exactly FTS5's (tokenizedAsAscii: the query's words and the
// passage's tokens ASCII letters and digits): snippet() re-read each row's position lists and tokenized its text
// twice, ~0.3-0.6 ms a page of 10 hits at 100k meetings. PostgreSQL's uses it with its own folding, so both engines
// cut and mark a passage alike (ts_headline chose other words).

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
 * The tokens of `text` (each match of `token`, a global pattern) and which of `words` (distinct, folded) each is.
 * With `token` /[A-Za-z0-9]+/g and lower-casing, these are search_fts's tokens of a tokenizedAsAscii text.
 */
function tokensOf(text: string, words: string[], token: RegExp, fold: (token: string) => string): Token[] {
  const index = new Map(words.map((w, i) => [w, i]));
  const tokens: Token[] = [];
  for (const m of text.matchAll(token)) tokens.push({ start: m.index, end: m.index + m[0].length, word: index.get(fold(m[0])) ?? -1 });
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
 * The snippet of `text` for the query's `words` (distinct, folded as `fold` folds a token), tokens being the matches of
 * `token` (a global pattern).
 */
export function snippetOf(text: string, words: string[], token: RegExp, fold: (token: string) => string, size = SNIPPET_TOKENS): Snippet {
  const tokens = tokensOf(text, words, token, fold);
  const hits = tokens.flatMap((t, pos) => (t.word < 0 ? [] : [pos]));
  const firstMatch = hits.length === 0 ? null : text.slice(0, tokens[hits[0]!]!.start).split(' ').length - 1;
  const start = bestStart(text, tokens, hits, words.length, size);
  return { snippet: highlighted(text, tokens, hits, start, size).replace(/\s*\n+\s*/g, ' '), firstMatch };
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
  const sentences = sentenceStarts(text, tokens);
  let [best, start] = [0, 0];
  for (const pos of hits) {
    const own = score(pos);
    if (own.score > best) [best, start] = [own.score, own.centred];
    if (sentences.length === 0 || count <= size) continue;
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
