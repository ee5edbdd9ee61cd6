// The filter matrix of issue 19: every filter of list_meetings and search_transcripts alone and
// combined, with rare and common values chosen from the data (the most frequent participant name word,
// the most frequent word, the biggest top-level folder ...), deep offsets; server-side in-process
// (p50 / p99 / max around the Store calls the tools make) and a few rows round trip through the built
// `syntheo mcp` over stdio. With a PostgreSQL URL, every row on both engines in the same run, call by
// call, and their answers compared (MISMATCH).
//   node dist/bench/matrix.js --db bench/.data/bench-100000-10000000.db [--url postgresql://...] [--calls 30] [--json out.json]
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { openDatabase, type Sqlite } from '../src/db/open.js';
import { openStore } from '../src/db/engine.js';
import type { Store } from '../src/db/store.js';
import type { MeetingFilter } from '../src/db/queries/meetings.js';
import type { SearchFilter } from '../src/db/queries/search.js';
import { PACKAGE_ROOT } from '../src/package.js';
import { MAX_PARTICIPANT_EXCEPTIONS, MAX_PARTICIPANT_HANDLES, MAX_PARTICIPANT_WORDS } from '../src/db/queries/participant-words.js';
import { fillPostgres } from './postgres.js';
import { median, quantile, type Row } from './stats.js';

const CLI = join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js');

export interface MatrixCase {
  /** What the row asks, with the values the bench chose. */
  name: string;
  tool: 'list_meetings' | 'search_transcripts';
  filter: MeetingFilter | SearchFilter;
  offset: number;
  limit: number;
  /** Also timed round trip through `syntheo mcp`. */
  roundTrip?: boolean;
}

interface Timing {
  calls: number;
  p50: number;
  p99: number;
  max: number;
  rtP50?: number;
  rtP99?: number;
  rtMax?: number;
}

export interface MatrixResult extends Timing {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** SQLite's total. */
  total: number;
  /** The same row on PostgreSQL (with a URL); `mismatch` says how its answer differs from SQLite's. */
  pg?: Timing & { total: number; mismatch?: string };
}

/** Server-side budgets of issue 19, per row. */
export const BUDGET = { p50: 5, p99: 20, rtP99: 30 };

/** Words of names and text as people type them: runs of letters and digits. */
const wordsOf = (text: string): string[] => text.match(/[\p{L}\p{N}]+/gu) ?? [];

function mostFrequent(counts: Map<string, number>, accept: (key: string) => boolean = () => true): string | undefined {
  let best: string | undefined;
  let n = -1;
  for (const [k, c] of counts) if (accept(k) && (c > n || (c === n && k < best!))) [best, n] = [k, c];
  return best;
}

const count = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

/** The values of the matrix, read from the database: nothing about the generator is assumed. */
export function chooseCases(sqlite: Sqlite): MatrixCase[] {
  const one = <T>(sql: string, ...args: unknown[]) => sqlite.prepare(sql).get(...args) as T;
  const all = <T>(sql: string, ...args: unknown[]) => sqlite.prepare(sql).all(...args) as T[];
  const total = one<{ n: number }>('SELECT count(*) AS n FROM meetings').n;

  // Participants: the word of a name found in the most meetings (a common first name), and one rare full name.
  const nameWords = new Map<string, number>();
  const fullNames = new Map<string, number>();
  // Two words of a name (a fragment across words: no index word holds it), by the meetings holding them.
  const namePairs = new Map<string, number>();
  for (const r of all<{ meeting_id: string; names: string }>("SELECT meeting_id, group_concat(name, char(31)) AS names FROM participants GROUP BY meeting_id")) {
    const names = r.names.split('\u001f');
    for (const w of new Set(names.flatMap((n) => wordsOf(n).filter((x) => !/^\d+$/.test(x)).map((x) => x.toLowerCase())))) count(nameWords, w);
    for (const n of new Set(names)) count(fullNames, n);
    for (const pair of new Set(names.flatMap((n) => wordsOf(n).slice(1).map((w, i) => `${wordsOf(n)[i]} ${w}`).filter((x) => !/\d/.test(x))))) count(namePairs, pair);
  }
  const commonPerson = mostFrequent(nameWords) ?? 'a';
  // The letter in the most words of names and e-mails (participant_words): a fragment in more words and names than a
  // filter lists as tags.
  const nameLetters = new Map<string, number>();
  for (const word of all<{ word: string }>('SELECT word FROM participant_words')) for (const ch of new Set(word.word.toLowerCase().match(/[a-z]/g) ?? [])) count(nameLetters, ch);
  const nameLetter = mostFrequent(nameLetters);
  const commonPair = mostFrequent(namePairs);
  // Fragments in a few words of names and e-mails (2 to 32: a filter's tags) but in many meetings: the letter, and the
  // two letters, in the most meetings' names and e-mails among those.
  const fewWords = (fragment: string) => all<{ n: number }>("SELECT count(*) AS n FROM (SELECT 1 FROM participant_words WHERE instr(lower(word), ?) > 0 LIMIT 33)", fragment)[0]!.n;
  const handles = all<{ h: string }>("SELECT lower(group_concat(name || ' ' || coalesce(email, ''), ' ')) AS h FROM participants GROUP BY meeting_id").map((r) => r.h);
  const meetingsHolding = (candidates: string[]) => {
    const held = new Map(candidates.filter((c) => { const n = fewWords(c); return n >= 2 && n <= 32; }).map((c) => [c, 0]));
    for (const h of handles) for (const c of held.keys()) if (h.includes(c)) count(held, c);
    return held;
  };
  const fewWordsLetter = mostFrequent(meetingsHolding([...nameLetters.keys()]));
  const wordBigrams = new Map<string, number>();
  for (const word of all<{ word: string }>('SELECT word FROM participant_words'))
    for (const bg of new Set(Array.from({ length: Math.max(0, word.word.length - 1) }, (_, i) => word.word.toLowerCase().slice(i, i + 2)).filter((x) => /^[a-z]{2}$/.test(x)))) count(wordBigrams, bg);
  const pairsHeld = meetingsHolding([...wordBigrams.keys()]);
  const fewWordsPair = mostFrequent(pairsHeld);
  // And the two letters in about half the meetings (their words' tags are then many meetings, few failing none).
  const halfPair = [...pairsHeld].sort((a, b) => Math.abs(a[1] - total / 2) - Math.abs(b[1] - total / 2) || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  // A fragment in more names and e-mails than a filter lists as tags and more words, failing too many meetings for their
  // list (`person1` in the bench's numbered e-mails; in real names, two or three letters): each meeting's participants
  // decide. The start of a name or e-mail (2-8 characters) in the most meetings among those.
  const handleList = all<{ h: string }>('SELECT DISTINCT lower(handle) AS h FROM participant_handles').map((r) => r.h);
  const starts = new Set(handleList.flatMap((h) => Array.from({ length: Math.min(7, h.length - 1) }, (_, i) => h.slice(0, i + 2)).filter((x) => /^[\p{L}\p{N}]+$/u.test(x))));
  const wide = [...starts].filter((c) => handleList.filter((h) => h.includes(c)).length > MAX_PARTICIPANT_HANDLES && fewWords(c) > MAX_PARTICIPANT_WORDS);
  const wideHeld = new Map(wide.map((c) => [c, 0]));
  for (const h of handles) for (const c of wide) if (h.includes(c)) count(wideHeld, c);
  const manyNames = mostFrequent(wideHeld, (c) => total - wideHeld.get(c)! > MAX_PARTICIPANT_EXCEPTIONS);
  let rarePerson = 'nobody';
  let rareN = Infinity;
  for (const [name, n] of fullNames) if (n < rareN || (n === rareN && name < rarePerson)) [rarePerson, rareN] = [name, n];

  // Words of what was said, from a sample of passages spread over the whole index.
  const passages = one<{ lo: number; hi: number }>("SELECT min(id) AS lo, max(id) AS hi FROM search_passages WHERE kind = 'transcript'");
  const step = Math.max(1, Math.floor((passages.hi - passages.lo) / 4000));
  const said = new Map<string, number>();
  const pairs = new Map<string, number>();
  const sample = all<{ text: string }>("SELECT text FROM search_passages WHERE id >= ? AND (id - ?) % ? = 0 AND kind = 'transcript' LIMIT 4000", passages.lo, passages.lo, step);
  for (const r of sample) {
    const w = wordsOf(r.text.toLowerCase());
    for (const x of new Set(w)) count(said, x);
    for (let i = 1; i < w.length; i++) count(pairs, `${w[i - 1]} ${w[i]}`);
  }
  const commonWord = mostFrequent(said, (w) => w.length >= 3) ?? 'the';
  // Two different common words (the most frequent pair is a word said twice: one word to the index).
  const secondWord = mostFrequent(said, (w) => w.length >= 3 && w !== commonWord);
  const oneChar = mostFrequent(said, (w) => w.length === 1);
  const twoChars = mostFrequent(said, (w) => w.length === 2);
  const commonPhrase = mostFrequent(pairs) ?? `${commonWord} ${commonWord}`;
  // The most frequent words (any length), as a query of several common words that is rarely said as a phrase.
  const topWords = [...said].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
  // Rare: seen once in the sample, longest first (rarer in a Zipf vocabulary), with few matches in all.
  const rareCandidates = [...said].filter(([w, n]) => n === 1 && w.length >= 6).map(([w]) => w).sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  const ftsCount = (q: string) => one<{ n: number }>('SELECT count(*) AS n FROM search_fts WHERE search_fts MATCH ?', `"${q}"`).n;
  const rareWord = rareCandidates.find((w) => ftsCount(w) <= 200) ?? rareCandidates[0] ?? commonWord;
  // A word neither common nor rare: in about 1 passage of 40 of the sample (the bitmaps keep words from 1 in 32).
  const target = sample.length / 40;
  const mids = [...said].filter(([w]) => w.length >= 4).sort((a, b) => Math.abs(a[1] - target) - Math.abs(b[1] - target) || (a[0] < b[0] ? -1 : 1));
  const midWord = mids[0]?.[0] ?? rareWord;
  const secondMid = mids[1]?.[0];
  // Words in about 1 passage of 8 of the sample, as a topic's words often are (kept as bitmaps, far from the most common).
  const eighths = [...said].filter(([w]) => w.length >= 4).sort((a, b) => Math.abs(a[1] - sample.length / 8) - Math.abs(b[1] - sample.length / 8) || (a[0] < b[0] ? -1 : 1));
  const [eighthWord, secondEighth] = [eighths[0]?.[0], eighths[1]?.[0]];
  const rarePhrase = [...pairs].filter(([p, n]) => n === 1 && p.split(' ').every((w) => w.length >= 5)).map(([p]) => p).sort()[0] ?? rareWord;

  // Titles: the most frequent 1 and 2 characters and 3+ letter word, and one meeting's whole title.
  const letters = new Map<string, number>();
  const bigrams = new Map<string, number>();
  const titleWords = new Map<string, number>();
  const trigrams = new Map<string, number>();
  const trigramWords = new Map<string, Set<string>>();
  const endings = new Set<string>();
  const wordPairs = new Map<string, number>();
  const threes = (w: string) => Array.from({ length: w.length - 2 }, (_, i) => w.slice(i, i + 3));
  for (const r of all<{ title: string }>('SELECT title FROM meetings WHERE rowid % 50 = 0')) {
    const t = r.title.toLowerCase();
    for (const ch of new Set(t.replace(/[^\p{L}]/gu, ''))) count(letters, ch);
    for (const bg of new Set(Array.from({ length: Math.max(0, t.length - 1) }, (_, i) => t.slice(i, i + 2)).filter((x) => /^\p{L}{2}$/u.test(x)))) count(bigrams, bg);
    for (const w of new Set(wordsOf(t).filter((x) => x.length >= 3 && !/^\d+$/.test(x)))) count(titleWords, w);
    const letterWords = [...new Set(wordsOf(t).filter((x) => /^\p{L}{3,}$/u.test(x)))];
    for (const w of letterWords) for (const g of threes(w)) trigramWords.set(g, (trigramWords.get(g) ?? new Set<string>()).add(w));
    for (const g of new Set(letterWords.flatMap(threes))) count(trigrams, g);
    for (const g of t.match(/\p{L}{3}(?= )/gu) ?? []) endings.add(`${g} `);
    for (const pair of new Set(Array.from(t.matchAll(/(?<!\p{L})(\p{L}+) (?=(\p{L}+))/gu), (m) => `${m[1]} ${m[2]}`))) count(wordPairs, pair);
  }
  // The three letters inside several title words held by the most meetings (`ing`: a title fragment's words merged or
  // counted from their bits), and the same with the space after (across words: the titles themselves checked).
  const spread = [...trigrams].filter(([g]) => (trigramWords.get(g)?.size ?? 0) >= 2).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0];
  // The three letters inside title words held by the most meetings that some meeting's id holds too (`eng`: the ids'
  // words have digits, so no kept bits; their bits made beside the title words' own).
  const ids = all<{ id: string }>('SELECT lower(id) AS id FROM meetings').map((r) => r.id);
  const inIds = [...trigrams].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 50).find(([g]) => ids.some((id) => id.includes(g.toLowerCase())))?.[0];
  // Titles beyond ASCII (migration 0014), when the data has them: the most frequent Latin, Greek or Cyrillic letter beyond ASCII, pair of CJK
  // characters and pictograph (an astral character, two UTF-16 units), read from every 7th meeting.
  const wideLetters = new Map<string, number>();
  const cjkPairs = new Map<string, number>();
  const pictographs = new Map<string, number>();
  for (const r of all<{ title: string }>("SELECT title FROM meetings WHERE rowid % 7 = 0 AND length(CAST(title AS BLOB)) != length(title)")) {
    const points = Array.from(r.title.toLowerCase());
    for (const ch of new Set(points.filter((c) => c.charCodeAt(0) >= 0x80 && /[\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}]/u.test(c)))) count(wideLetters, ch);
    for (const p of new Set(points.slice(1).map((c, i) => points[i]! + c).filter((x) => /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]{2}$/u.test(x)))) count(cjkPairs, p);
    for (const ch of new Set(points.filter((c) => /\p{Extended_Pictographic}/u.test(c) && c.length === 2))) count(pictographs, ch);
  }
  const rareTitle = one<{ title: string }>('SELECT title FROM meetings ORDER BY started_at LIMIT 1 OFFSET ?', Math.floor(total / 3))?.title ?? 'x';

  // Folders: the top-level folder holding the most meetings (subfolders included), and the smallest non-empty leaf.
  const folders = all<{ path: string; meeting_count: number }>('SELECT path, meeting_count FROM folders');
  const tops = new Map<string, number>();
  for (const f of folders) tops.set(f.path.split('/')[0]!, (tops.get(f.path.split('/')[0]!) ?? 0) + f.meeting_count);
  const bigFolder = mostFrequent(tops);
  const leaves = folders.filter((f) => f.meeting_count > 0 && !folders.some((g) => g.path.startsWith(`${f.path}/`))).sort((a, b) => a.meeting_count - b.meeting_count || (a.path < b.path ? -1 : 1));
  const smallFolder = leaves[0]?.path;
  const series = one<{ series_id: string } | undefined>('SELECT series_id FROM meetings WHERE series_id IS NOT NULL GROUP BY series_id ORDER BY count(*) DESC, series_id LIMIT 1')?.series_id;

  // Dates: the last six months of the data, and its last day (bare dates: whole UTC days).
  const newest = one<{ d: string | null }>('SELECT max(started_at) AS d FROM meetings').d ?? '2026-11-30T00:00:00.000Z';
  const day = newest.slice(0, 10);
  const sixMonthsBefore = new Date(Date.parse(day) - 182 * 86_400_000).toISOString().slice(0, 10);
  const six = { from: sixMonthsBefore, to: day };

  const cases: MatrixCase[] = [];
  const L = (name: string, filter: MeetingFilter, offset = 0, roundTrip = false) => cases.push({ name, tool: 'list_meetings', filter, offset, limit: 20, roundTrip });
  const S = (name: string, filter: SearchFilter, offset = 0, roundTrip = false) => cases.push({ name, tool: 'search_transcripts', filter, offset, limit: 10, roundTrip });

  L('default', {}, 0, true);
  L(`offset ${total - 100} (deep)`, {}, Math.max(0, total - 100), true);
  const letter = mostFrequent(letters);
  const bigram = mostFrequent(bigrams);
  if (letter) L(`query "${letter}" (1 char)`, { query: letter });
  if (bigram) L(`query "${bigram}" (2 chars)`, { query: bigram });
  for (const [what, fragment] of [['letter beyond ASCII', mostFrequent(wideLetters)], ['CJK pair', mostFrequent(cjkPairs)], ['pictograph', mostFrequent(pictographs)]] as const) {
    if (fragment === undefined) continue;
    L(`query "${fragment}" (${what})`, { query: fragment });
    if (bigFolder) L(`query "${fragment}" (${what}) + folder`, { query: fragment, folderPath: bigFolder });
  }
  const titleWord = mostFrequent(titleWords);
  L(`query "${titleWord}" (common word)`, { query: titleWord }, 0, true);
  L(`query "${rareTitle}" (one title)`, { query: rareTitle });
  if (spread) L(`query "${spread}" (3 letters in several title words)`, { query: spread });
  if (spread && endings.has(`${spread} `)) L(`query "${spread} " (across title words)`, { query: `${spread} ` });
  if (inIds) L(`query "${inIds}" (3 letters in title words and ids)`, { query: inIds });
  // Two title words side by side held by the most meetings (`incident review`): a phrase an assistant would look for.
  const wordPair = mostFrequent(wordPairs);
  if (wordPair) L(`query "${wordPair}" (two title words side by side)`, { query: wordPair });
  L(`participant "${commonPerson}" (most frequent)`, { participant: commonPerson }, 0, true);
  L(`participant "${rarePerson}" (rare)`, { participant: rarePerson });
  if (commonPair) L(`participant "${commonPair}" (across words, most frequent)`, { participant: commonPair });
  L(`participant "${commonPerson.slice(0, 2)}" (2 chars)`, { participant: commonPerson.slice(0, 2) });
  if (nameLetter) L(`participant "${nameLetter}" (1 char, in the most name words)`, { participant: nameLetter });
  if (nameLetter) L(`participant "${nameLetter}" + query "${titleWord}"`, { participant: nameLetter, query: titleWord });
  if (fewWordsLetter) L(`participant "${fewWordsLetter}" (1 char, in few name words, most meetings)`, { participant: fewWordsLetter });
  if (fewWordsPair) L(`participant "${fewWordsPair}" (2 chars, in few name words, most meetings)`, { participant: fewWordsPair });
  if (halfPair) L(`participant "${halfPair}" (2 chars, in few name words, half the meetings)`, { participant: halfPair });
  if (manyNames) L(`participant "${manyNames}" (in many names and e-mails, too many meetings lacking it)`, { participant: manyNames });
  if (bigFolder) L(`folder "${bigFolder}" (biggest top-level)`, { folderPath: bigFolder }, 0, true);
  if (smallFolder) L(`folder "${smallFolder}" (smallest leaf)`, { folderPath: smallFolder });
  if (series) L('series (largest)', { seriesId: series });
  L(`from/to six months`, six);
  L(`from/to one day`, { from: day, to: day });
  L(`from one day to a time of day`, { from: day, to: `${day}T12:00:00.000Z` });
  if (bigFolder) L(`participant common + folder`, { participant: commonPerson, folderPath: bigFolder });
  L(`participant common + six months`, { participant: commonPerson, ...six });
  // Two common filters, neither counted as bits: a title word and a participant word; names across words and a folder.
  L(`participant common + query "${titleWord}" (common word)`, { participant: commonPerson, query: titleWord });
  // A title fragment in several words with a participant's word, and with a fragment in too many names (probed).
  if (spread) L(`participant common + query "${spread}" (several title words)`, { participant: commonPerson, query: spread });
  if (spread && manyNames) L(`participant "${manyNames}" + query "${spread}" (several title words)`, { participant: manyNames, query: spread });
  if (inIds) L(`participant common + query "${inIds}" (title words and ids)`, { participant: commonPerson, query: inIds });
  if (commonPair && bigFolder) L(`participant "${commonPair}" (across words, most frequent) + folder`, { participant: commonPair, folderPath: bigFolder });
  if (bigFolder) L(`participant common + folder + six months + query`, { participant: commonPerson, folderPath: bigFolder, ...six, query: titleWord });
  if (series) L('series + participant common', { seriesId: series, participant: commonPerson });
  if (bigFolder) L(`folder, offset 5000 (deep)`, { folderPath: bigFolder }, 5000);
  L(`participant common, offset 20000 (deep)`, { participant: commonPerson }, 20000);
  if (halfPair) L(`participant "${halfPair}" (in few name words, half the meetings), offset 20000 (deep)`, { participant: halfPair }, 20000);
  // Past DEEP_PAGE, half way into its meetings (counted above from the participants' names).
  if (commonPair) L(`participant "${commonPair}" (across words, most frequent), half way (deep)`, { participant: commonPair }, Math.floor((namePairs.get(commonPair) ?? 0) / 2));

  S(`rare word "${rareWord}"`, { query: rareWord });
  S(`rare phrase "${rarePhrase}"`, { query: rarePhrase });
  S(`common word "${commonWord}"`, { query: commonWord }, 0, true);
  if (oneChar) S(`1-char word "${oneChar}"`, { query: oneChar });
  if (twoChars) S(`2-char word "${twoChars}"`, { query: twoChars });
  S(`common phrase "${commonPhrase}"`, { query: commonPhrase });
  if (secondWord) S(`two common words "${commonWord} ${secondWord}"`, { query: `${commonWord} ${secondWord}` });
  if (topWords.length >= 3) S(`three common words "${topWords.slice(0, 3).join(' ')}"`, { query: topWords.slice(0, 3).join(' ') });
  if (topWords.length >= 5) S(`five common words "${topWords.slice(0, 5).join(' ')}"`, { query: topWords.slice(0, 5).join(' ') });
  if (topWords.length >= 2) S(`two common words + word in 1 passage of 40 "${topWords[1]} ${commonWord} ${midWord}"`, { query: `${topWords[1]} ${commonWord} ${midWord}` });
  S(`common + rare word "${commonWord} ${rareWord}"`, { query: `${commonWord} ${rareWord}` });
  // A word neither common nor rare, as most words asked are: alone, with a common word, with another such word.
  S(`word in 1 passage of 40 "${midWord}"`, { query: midWord });
  S(`common + word in 1 passage of 40 "${commonWord} ${midWord}"`, { query: `${commonWord} ${midWord}` });
  if (secondMid) S(`two words in 1 passage of 40 "${midWord} ${secondMid}"`, { query: `${midWord} ${secondMid}` });
  // With the second most frequent word: a word the statistics do not list among their most common, and one they do.
  if (secondWord) S(`word in 1 passage of 40 + second common word "${midWord} ${secondWord}"`, { query: `${midWord} ${secondWord}` });
  if (bigFolder) S(`common + folder (biggest)`, { query: commonWord, folderPath: bigFolder }, 0, true);
  if (bigFolder && secondWord) S(`two common words + folder (biggest)`, { query: `${commonWord} ${secondWord}`, folderPath: bigFolder });
  if (smallFolder) S(`common + folder (smallest leaf)`, { query: commonWord, folderPath: smallFolder });
  if (smallFolder && secondWord) S(`two common words + folder (smallest leaf)`, { query: `${commonWord} ${secondWord}`, folderPath: smallFolder });
  if (series) S('common + series', { query: commonWord, seriesId: series });
  S('common + six months', { query: commonWord, ...six }, 0, true);
  S('common + one day', { query: commonWord, from: day, to: day });
  // Dates as assistants often send them, with a time of day: the day's meetings after it left out.
  S('common + one day to a time of day', { query: commonWord, from: day, to: `${day}T12:00:00.000Z` });
  S('common + one week', { query: commonWord, from: new Date(Date.parse(day) - 6 * 86_400_000).toISOString().slice(0, 10), to: day });
  // A month: the data's last whole calendar month, given as its first and last days.
  const monthEnd = new Date(Date.parse(`${day.slice(0, 8)}01`) - 86_400_000).toISOString().slice(0, 10);
  S('common + one month', { query: commonWord, from: `${monthEnd.slice(0, 8)}01`, to: monthEnd });
  // A topic's word over a month, with a common word or another such word: few matches, long key ranges to walk.
  if (eighthWord) S(`common + word in 1 passage of 8 + one month "${commonWord} ${eighthWord}"`, { query: `${commonWord} ${eighthWord}`, from: `${monthEnd.slice(0, 8)}01`, to: monthEnd });
  if (eighthWord && secondEighth)
    S(`two words in 1 passage of 8 + one month "${eighthWord} ${secondEighth}"`, { query: `${eighthWord} ${secondEighth}`, from: `${monthEnd.slice(0, 8)}01`, to: monthEnd });
  S(`common + participant common`, { query: commonWord, participant: commonPerson }, 0, true);
  S(`common + participant rare`, { query: commonWord, participant: rarePerson });
  if (commonPair) S(`common + participant across words (most frequent)`, { query: commonWord, participant: commonPair });
  if (nameLetter) S(`common + participant "${nameLetter}" (1 char, in the most name words)`, { query: commonWord, participant: nameLetter });
  if (fewWordsLetter) S(`common + participant "${fewWordsLetter}" (1 char, in few name words, most meetings)`, { query: commonWord, participant: fewWordsLetter });
  if (fewWordsPair) S(`common + participant "${fewWordsPair}" (2 chars, in few name words, most meetings)`, { query: commonWord, participant: fewWordsPair });
  if (halfPair) S(`common + participant "${halfPair}" (2 chars, in few name words, half the meetings)`, { query: commonWord, participant: halfPair });
  if (manyNames) {
    S(`common + participant "${manyNames}" (in many names, too many meetings lacking it)`, { query: commonWord, participant: manyNames });
    S(`rare + participant "${manyNames}"`, { query: rareWord, participant: manyNames });
    S(`word in 1 passage of 40 "${midWord}" + participant "${manyNames}"`, { query: midWord, participant: manyNames });
  }
  S(`rare + participant common`, { query: rareWord, participant: commonPerson });
  if (commonPair) S(`rare + participant across words (most frequent)`, { query: rareWord, participant: commonPair });
  if (commonPair) S(`word in 1 passage of 40 "${midWord}" + participant across words`, { query: midWord, participant: commonPair });
  if (commonPair && secondMid) S(`two words in 1 passage of 40 + participant across words`, { query: `${midWord} ${secondMid}`, participant: commonPair });
  S('rare + six months', { query: rareWord, ...six });
  if (series) S('common + series + six months', { query: commonWord, seriesId: series, ...six });
  if (bigFolder) S('common + folder + six months + participant', { query: commonWord, folderPath: bigFolder, participant: commonPerson, ...six });
  S('common phrase + participant common', { query: commonPhrase, participant: commonPerson });
  S('common, offset 5000 (deep)', { query: commonWord }, 5000);
  // Past the window with dates to a time of day: the page walks back from the window's end.
  S('common + six months to a time of day, offset 2500', { query: commonWord, from: six.from, to: `${day}T12:00:00.000Z` }, 2500);
  if (bigFolder) S('common + folder, offset 2000', { query: commonWord, folderPath: bigFolder }, 2000);
  return cases;
}

type Answer = { total: number; ids: string[] };

/** One call through the Store, as the tool makes it; JSON included (the tool serialises the answer too). */
export async function run(store: Store, c: Pick<MatrixCase, 'tool' | 'filter' | 'offset' | 'limit'>): Promise<Answer> {
  const page = { limit: c.limit, offset: c.offset };
  if (c.tool === 'list_meetings') {
    const r = await store.meetings.list(c.filter, page);
    JSON.stringify(r);
    return { total: r.pagination.total, ids: r.meetings.map((m) => m.id) };
  }
  const r = await store.search.transcripts(c.filter as SearchFilter, page);
  JSON.stringify(r);
  return { total: r.pagination.total, ids: r.hits.map((h) => h.meeting_id) };
}

/**
 * What differs between the engines' answers to a row, or undefined: the total, and for list_meetings
 * the page itself (newest first, ties by ID: one right answer). Search pages are ranked (BM25 on
 * both, but PostgreSQL's without a passage's length, over its own parser's words), so only their totals must agree.
 */
export function mismatch(tool: MatrixCase['tool'], sqlite: Answer, postgres: Answer): string | undefined {
  if (sqlite.total !== postgres.total) return `total ${sqlite.total} vs ${postgres.total}`;
  if (tool === 'list_meetings' && sqlite.ids.join() !== postgres.ids.join()) {
    const at = sqlite.ids.findIndex((id, i) => postgres.ids[i] !== id);
    return `page differs at item ${at === -1 ? sqlite.ids.length : at}`;
  }
  return undefined;
}

/** Tool arguments of a case, as an MCP client sends them. */
function toolArgs(c: MatrixCase): Record<string, unknown> {
  const f = c.filter as SearchFilter;
  const a: Record<string, unknown> = { limit: c.limit, offset: c.offset };
  if (f.query !== undefined) a.query = f.query;
  if (f.folderPath !== undefined) a.folder_path = f.folderPath;
  if (f.seriesId !== undefined) a.series_id = f.seriesId;
  if (f.from !== undefined) a.from = f.from;
  if (f.to !== undefined) a.to = f.to;
  if (f.participant !== undefined) a.participant = f.participant;
  return a;
}

const stats = (times: number[]): Timing => ({ calls: times.length, p50: median(times), p99: quantile(times, 0.99), max: Math.max(...times) });

/**
 * Times `calls` calls of each engine's `call`, after two warm-ups, interleaved (SQLite, then
 * PostgreSQL, call by call: both see the same machine load); fewer when a row is slow (at most ~budgetMs
 * a row, at least 5 calls).
 */
async function timeInterleaved(calls: (() => Promise<unknown>)[], n: number, budgetMs: number): Promise<number[][]> {
  for (const call of calls) {
    await call();
    await call();
  }
  const times: number[][] = calls.map(() => []);
  const started = performance.now();
  while (times[0]!.length < n && (times[0]!.length < 5 || performance.now() - started < budgetMs)) {
    for (const [i, call] of calls.entries()) {
      const t0 = performance.now();
      await call();
      times[i]!.push(performance.now() - t0);
    }
  }
  return times;
}

async function mcpClient(db: string): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--db', db], stderr: 'ignore', cwd: PACKAGE_ROOT });
  const client = new Client({ name: 'syntheo-bench-matrix', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(transport);
  return client;
}

export interface MatrixOptions {
  /** The SQLite database: the cases are chosen from it. */
  db: string;
  /** A PostgreSQL database (postgresql://...): every row is timed on it too, in the same run; filled from `db` when empty. */
  url?: string;
  calls: number;
  /**
   * Times the rows are timed, one whole run after another (1 by default): a row's p50 is then the median of its runs'
   * p50s, its p99 and max the worst of its runs' (see combineRuns). The round trips are timed once.
   */
  runs?: number;
  roundTrip?: boolean;
  budgetMs?: number;
  rows?: RegExp;
  log?: (line: string) => void;
}

/**
 * One row's timings over several runs of the matrix: the median of their p50s (a run's p50 moved 10-30% from one run to
 * the next on this machine, the code the same, and all of a run's rows with it), and the worst of their p99s and maxima
 * (the worst case of each row); the calls summed.
 */
export function combineRuns(runs: Timing[]): Timing {
  return { calls: runs.reduce((n, r) => n + r.calls, 0), p50: median(runs.map((r) => r.p50)), p99: Math.max(...runs.map((r) => r.p99)), max: Math.max(...runs.map((r) => r.max)) };
}

/**
 * Every case through the Store (`store.meetings.list`, `store.search.transcripts`: what the tools call),
 * on SQLite, and with `url` on PostgreSQL beside it, call by call; then the marked rows round trip
 * through `syntheo mcp` (one server per engine).
 */
export async function benchMatrix(options: MatrixOptions): Promise<MatrixResult[]> {
  const log = options.log ?? (() => {});
  const runs = options.runs ?? 1;
  if (!Number.isInteger(runs) || runs < 1) throw new RangeError(`runs must be a whole number of 1 or more, not ${runs}`);
  const budgetMs = (options.budgetMs ?? 4000) * (options.url ? 2 : 1);
  const chooser = openDatabase(options.db, { create: false });
  let cases: MatrixCase[];
  try {
    cases = chooseCases(chooser.sqlite).filter((c) => !options.rows || options.rows.test(`${c.tool} ${c.name}`));
  } finally {
    chooser.close();
  }
  if (options.url) {
    const copied = await fillPostgres(options.db, options.url);
    if (copied) log(`${copied.name}: ${copied.value} (${copied.detail})`);
  }
  const stores: Store[] = [await openStore(options.db, { create: false })];
  const results: MatrixResult[] = [];
  try {
    if (options.url) stores.push(await openStore(options.url, { create: false }));
    // Each case's answers (from the first run), and its timings on each engine, a run each.
    const answers: Answer[][] = [];
    const timings: Timing[][][] = cases.map(() => stores.map(() => []));
    for (let k = 0; k < runs; k++)
      for (const [i, c] of cases.entries()) {
        if (k === 0) answers.push(await Promise.all(stores.map((s) => run(s, c))));
        const times = await timeInterleaved(
          stores.map((s) => () => run(s, c)),
          options.calls,
          budgetMs,
        );
        times.forEach((t, e) => timings[i]![e]!.push(stats(t)));
        const pg = times[1] ? `; PostgreSQL p50 ${median(times[1]).toFixed(2)} ms, max ${Math.max(...times[1]).toFixed(2)} ms` : '';
        log(`${c.tool} ${c.name}${runs > 1 ? ` (run ${k + 1} of ${runs})` : ''}: p50 ${median(times[0]!).toFixed(2)} ms, max ${Math.max(...times[0]!).toFixed(2)} ms (total ${answers[i]![0]!.total})${pg}`);
      }
    for (const [i, c] of cases.entries()) {
      const [sqlite, postgres] = answers[i]!;
      const r: MatrixResult = { name: c.name, tool: c.tool, args: toolArgs(c), total: sqlite!.total, ...combineRuns(timings[i]![0]!) };
      if (postgres) {
        const wrong = mismatch(c.tool, sqlite!, postgres);
        r.pg = { total: postgres.total, ...combineRuns(timings[i]![1]!), ...(wrong && { mismatch: wrong }) };
        if (wrong) log(`${c.tool} ${c.name}: MISMATCH ${wrong}`);
      }
      results.push(r);
    }
  } finally {
    for (const s of stores) await s.close();
  }
  if (options.roundTrip !== false && cases.some((c) => c.roundTrip)) {
    const clients: Client[] = [];
    try {
      clients.push(await mcpClient(options.db));
      if (options.url) clients.push(await mcpClient(options.url));
      for (const [i, c] of cases.entries()) {
        if (!c.roundTrip) continue;
        const calls = clients.map((client) => async () => {
          const r = (await client.callTool({ name: c.tool, arguments: toolArgs(c) })) as { isError?: boolean };
          if (r.isError) throw new Error(`${c.tool} failed: ${JSON.stringify(r).slice(0, 300)}`);
        });
        const times = await timeInterleaved(calls, options.calls, budgetMs);
        const rt = (t: number[]) => ({ rtP50: median(t), rtP99: quantile(t, 0.99), rtMax: Math.max(...t) });
        Object.assign(results[i]!, rt(times[0]!));
        if (times[1]) Object.assign(results[i]!.pg!, rt(times[1]));
        log(`round trip ${c.tool} ${c.name}: p50 ${median(times[0]!).toFixed(2)} ms${times[1] ? `, PostgreSQL ${median(times[1]).toFixed(2)} ms` : ''}`);
      }
    } finally {
      for (const client of clients) await client.close();
    }
  }
  return results;
}

/** PostgreSQL's budgets (issue 15): read tools' p50 within 2x SQLite's in the same run, search p50 under 20 ms. */
export const PG_BUDGET = { ratio: 2, searchP50: 20 };

/**
 * One row per case for `npm run bench`'s table. SQLite alone: over budget when p50 >= 5 ms, p99 >= 20 ms
 * or round trip p99 >= 30 ms. With PostgreSQL: its p50 against PG_BUDGET, and any MISMATCH is over.
 */
export function matrixRows(results: MatrixResult[]): Row[] {
  return results.map((r) => {
    const rt = (t: Timing) => (t.rtP99 === undefined ? '' : `; round trip p50 ${t.rtP50!.toFixed(2)} / p99 ${t.rtP99.toFixed(2)} ms`);
    if (r.pg) {
      const ratio = r.pg.p50 / r.p50;
      const search = r.tool === 'search_transcripts';
      return {
        name: `${r.tool} ${r.name}`,
        value: `${r.pg.p50.toFixed(2)} ms`,
        detail: `PostgreSQL p99 ${r.pg.p99.toFixed(2)}, max ${r.pg.max.toFixed(2)} ms${rt(r.pg)}; SQLite p50 ${r.p50.toFixed(2)} / p99 ${r.p99.toFixed(2)} ms; ratio ${ratio.toFixed(2)}x; total ${r.pg.total}; n=${r.pg.calls}${r.pg.mismatch ? `; MISMATCH ${r.pg.mismatch}` : ''}`,
        budget: search ? `p50 < ${PG_BUDGET.searchP50} ms, same total` : `p50 <= ${PG_BUDGET.ratio}x SQLite, same answer`,
        ok: r.pg.mismatch === undefined && (search ? r.pg.p50 < PG_BUDGET.searchP50 : ratio <= PG_BUDGET.ratio),
      };
    }
    const ok = r.p50 < BUDGET.p50 && r.p99 < BUDGET.p99 && (r.rtP99 === undefined || r.rtP99 < BUDGET.rtP99);
    return {
      name: `${r.tool} ${r.name}`,
      value: `${r.p50.toFixed(2)} ms`,
      detail: `p99 ${r.p99.toFixed(2)}, max ${r.max.toFixed(2)} ms; total ${r.total}; n=${r.calls}${rt(r)}`,
      budget: 'p50 < 5, p99 < 20 ms (rt p99 < 30)',
      ok,
    };
  });
}

/** The matrix as a Markdown table (bench/README.md): SQLite alone, or both engines side by side. */
export function matrixMarkdown(results: MatrixResult[]): string {
  const f = (v: number | undefined) => (v === undefined ? '' : v.toFixed(2));
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  if (results.some((r) => r.pg)) {
    const lines = [
      '| tool | row | total | SQLite p50 / p99 | PostgreSQL p50 / p99 / max | ratio | round trip p50 SQLite / PostgreSQL | |',
      '|-|-|-:|-:|-:|-:|-:|-|',
    ];
    for (const r of results) {
      const pg = r.pg!;
      const rt = r.rtP50 === undefined ? '' : `${f(r.rtP50)} / ${f(pg.rtP50)}`;
      lines.push(`| ${r.tool} | ${cell(r.name)} | ${r.total} | ${f(r.p50)} / ${f(r.p99)} | ${f(pg.p50)} / ${f(pg.p99)} / ${f(pg.max)} | ${(pg.p50 / r.p50).toFixed(1)}x | ${rt} | ${pg.mismatch ? `MISMATCH ${cell(pg.mismatch)}` : ''} |`);
    }
    return lines.join('\n');
  }
  const lines = ['| tool | row | total | p50 ms | p99 ms | max ms | round trip p50 / p99 ms |', '|-|-|-:|-:|-:|-:|-:|'];
  for (const r of results) lines.push(`| ${r.tool} | ${cell(r.name)} | ${r.total} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.max)} | ${r.rtP50 === undefined ? '' : `${f(r.rtP50)} / ${f(r.rtP99)}`} |`);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { benchArgs, benchDatabase } = await import('./args.js');
  const { writeFileSync } = await import('node:fs');
  const values = benchArgs('matrix', 'Time every filter of list_meetings and search_transcripts, alone and combined, on an existing database (issue 19).', {
    db: { type: 'string', value: 'FILE', default: 'bench/.data/bench-100000-10000000.db', description: 'Database (generate it with generate.js); the cases are chosen from it' },
    url: { type: 'string', value: 'URL', description: 'Also a PostgreSQL database (postgresql://...), filled from --db when empty: both engines side by side' },
    calls: { type: 'string', value: 'N', default: '30', description: 'Timed calls per row (fewer for rows slower than ~4 s in all)' },
    runs: { type: 'string', value: 'N', default: '1', description: "Whole runs, one after another: a row's p50 is the median of its runs' p50s, its p99 and max the worst" },
    'no-round-trip': { type: 'boolean', default: false, description: 'Skip the rows timed through syntheo mcp' },
    json: { type: 'string', value: 'FILE', description: 'Also write the results as JSON' },
    rows: { type: 'string', value: 'REGEX', description: 'Only the rows whose "tool row" matches' },
  });
  benchDatabase('matrix', values.db!);
  const results = await benchMatrix({
    db: values.db!,
    ...(values.url ? { url: values.url } : {}),
    calls: Number(values.calls),
    runs: Number(values.runs),
    roundTrip: !values['no-round-trip'],
    ...(values.rows ? { rows: new RegExp(values.rows) } : {}),
    log: (l) => process.stderr.write(`${l}\n`),
  });
  if (values.json) writeFileSync(values.json, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`${matrixMarkdown(results)}\n`);
}
