import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { snippetOf, SNIPPET_TOKENS } from '../../src/db/queries/snippet.js';
import { tokenizedAsAscii } from '../../src/db/queries/fts-tokens.js';

// Search snippets are computed from the passage's text (src/db/queries/snippet.ts) as FTS5's snippet() and highlight()
// compute them. Here against FTS5 itself, with search_fts's tokenizer: texts of 1 to 90 tokens in sentences (`.`, `:`,
// line breaks, other punctuation between tokens), queries of one to three words, repeated, matched many times or once,
// at the start or the end, or not at all.

const sqlite = new Database(':memory:');
sqlite.exec("CREATE VIRTUAL TABLE t USING fts5(text, tags, tokenize='unicode61 remove_diacritics 2')");
afterAll(() => sqlite.close());

function rng(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

const WORDS = ['the', 'budget', 'Review', 'a', 'we', 'q3', '42', 'roadmap', 'THE', 'team', 'ok', 'launch'];
const GAPS = [' ', ' ', ' ', ' ', '. ', ': ', ', ', '\n', '\n\n- ', ' — ', '.\n', ' : ', '? ', ' (', ') ', '.  ', ' -', '...'];

/** A text of `n` tokens: words between gaps, sometimes punctuation before the first or after the last. */
function text(next: () => number, n: number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
  let out = next() < 0.2 ? pick(['## ', '- ', '"', ' ']) : '';
  for (let i = 0; i < n; i++) out += (i > 0 ? pick(GAPS) : '') + pick(WORDS);
  return out + (next() < 0.3 ? pick(['.', '!', '\n', ' …']) : '');
}

/** FTS5's snippet and first match of one row, for the query's distinct words (the search's MATCH: each word a phrase). */
function fts5(id: number, words: string[]): { snippet: string; firstMatch: number | null } | undefined {
  const r = sqlite
    .prepare(`SELECT snippet(t, 0, '**', '**', '…', ${SNIPPET_TOKENS}) AS snippet, highlight(t, 0, char(1), '') AS marked FROM t WHERE t MATCH ? AND rowid = ?`)
    .get(`text : (${words.map((w) => `"${w}"`).join(' ')})`, BigInt(id)) as { snippet: string; marked: string } | undefined;
  if (!r) return undefined;
  const at = r.marked.indexOf('\u0001');
  return { snippet: r.snippet.replace(/\s*\n+\s*/g, ' '), firstMatch: at < 0 ? null : r.marked.slice(0, at).split(' ').length - 1 };
}

describe('search snippets', () => {
  it('are FTS5 snippet() and highlight() to the character', () => {
    const next = rng(7);
    const texts: string[] = [];
    const insert = sqlite.prepare('INSERT INTO t (rowid, text, tags) VALUES (?, ?, ?)');
    for (let i = 1; i <= 600; i++) {
      const n = i % 10 === 0 ? 1 + Math.floor(next() * 24) : 1 + Math.floor(next() * 90);
      texts[i] = text(next, n);
      insert.run(i, texts[i], 'f1 p2');
    }
    let compared = 0;
    const sentences = new Set<number>();
    for (let i = 1; i <= 600; i++) {
      const tokens = texts[i]!.toLowerCase().match(/[a-z0-9]+/g)!;
      expect(tokenizedAsAscii(texts[i]!)).toBe(true);
      const pick = () => tokens[Math.floor(next() * tokens.length)]!;
      for (const query of [[pick()], [pick(), pick()], [pick(), pick(), pick()], [tokens[0]!], [tokens.at(-1)!], ['the', 'budget']]) {
        const words = [...new Set(query)];
        const want = fts5(i, words);
        if (!want) continue;
        expect(snippetOf(texts[i]!, words), `text ${i}: ${JSON.stringify(texts[i])}, words ${words.join(' ')}`).toEqual(want);
        compared++;
        // A snippet FTS5 started after a `.` or `:`, not at the text's start: the sentences' branch was taken.
        const flat = texts[i]!.replace(/\s*\n+\s*/g, ' ');
        const at = flat.indexOf(want.snippet.slice(1).replace(/\*\*/g, '').slice(0, 30));
        if (want.snippet.startsWith('…') && at > 0 && /[.:]\s+$/.test(flat.slice(0, at))) sentences.add(i);
      }
    }
    // Most queries compared, and snippets that FTS5 started at a sentence among them.
    expect(compared).toBeGreaterThan(3000);
    expect(sentences.size).toBeGreaterThan(20);
  });

  it('beyond ASCII, mark the runs of letters, digits and marks whose folding is a word (PostgreSQL)', () => {
    const fold = (t: string) => t.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
    expect(snippetOf('Deuxième version', ['deuxieme'], fold)).toEqual({ snippet: '**Deuxième** version', firstMatch: 0 });
    expect(snippetOf("Le café de l'ÉQUIPE.\nPuis: l'équipe part", ['equipe'], fold)).toEqual({ snippet: "Le café de l'**ÉQUIPE**. Puis: l'**équipe** part", firstMatch: 3 });
    // A text whose tokens are ASCII (other characters between them) is tokenized as search_fts does.
    expect(snippetOf('the plan — 42 items… done', ['items'], fold)).toEqual({ snippet: 'the plan — 42 **items**… done', firstMatch: 4 });
  });

  it('mark nothing and cut at the window when no word is matched', () => {
    const words = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    expect(snippetOf(words, ['nothing'])).toEqual({ snippet: `${words.split(' ').slice(0, 24).join(' ')}…`, firstMatch: null });
  });
});
