import { openDatabase } from '../src/db/open.js';
import type { MeetingFilter } from '../src/db/queries/meetings.js';
import type { SearchFilter } from '../src/db/queries/search.js';
import { seeded } from './seeded.js';

// Random questions drawn from a database's own words, folders, series, names and dates (test/db/random-oracle.test.ts,
// test/postgres/random-parity.test.ts, and timed by bench/questions.ts): the paths the engines choose between depend on
// the values, so questions drawn from the data reach combinations no fixed list names.

export interface Vocabulary {
  common: string[];
  middling: string[];
  rare: string[];
  folders: string[];
  series: string[];
  handles: string[];
  titles: string[];
  first: number;
  last: number;
}

/** What the questions are made of, read from a SQLite file. */
export function vocabulary(file: string): Vocabulary {
  const opened = openDatabase(file, { create: false });
  const db = opened.sqlite;
  try {
    const col = <T>(sql: string) => db.prepare(sql).pluck().all() as T[];
    const counted = 'SELECT word FROM (SELECT word, sum(passages) AS n FROM search_word_counts GROUP BY word)';
    const span = db.prepare('SELECT min(started_at) AS lo, max(started_at) AS hi FROM meetings').get() as { lo: string; hi: string };
    return {
      common: col(`${counted} ORDER BY n DESC, word LIMIT 40`),
      middling: col(`${counted} WHERE n BETWEEN 100 AND 1000 ORDER BY word LIMIT 200`),
      rare: col(`${counted} ORDER BY n, word LIMIT 200`),
      folders: col('SELECT path FROM folders ORDER BY path'),
      series: col('SELECT id FROM series ORDER BY id'),
      handles: col('SELECT DISTINCT name FROM participants UNION SELECT DISTINCT email FROM participants WHERE email IS NOT NULL ORDER BY 1'),
      titles: col('SELECT title FROM meetings ORDER BY id LIMIT 400'),
      first: Date.parse(span.lo),
      last: Date.parse(span.hi),
    };
  } finally {
    opened.close();
  }
}

/** Random searches and lists over `v`: each kind of filter present a quarter to a third of the time, values common and rare. */
export function drawer(v: Vocabulary, seed: number) {
  const { next: rnd, one: pick } = seeded(seed);
  const slice = (s: string, most: number) => {
    const at = Math.floor(rnd() * Math.max(1, s.length - 1));
    return s.slice(at, at + 1 + Math.floor(rnd() * most));
  };
  /** A participant: a whole name or e-mail, its first word, or a fragment of 1-4 characters, maybe across words. */
  const participant = () => {
    const h = pick(v.handles);
    const r = rnd();
    return r < 0.3 ? h : r < 0.55 ? h.split(/[ @.]/)[0]! : slice(h, 4);
  };
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const when = (t: number) => (rnd() < 0.5 ? day(t) : new Date(t).toISOString());
  const filters = (f: MeetingFilter) => {
    if (rnd() < 0.25) f.folderPath = pick(v.folders);
    if (rnd() < 0.3) f.participant = participant();
    if (rnd() < 0.08) f.seriesId = pick(v.series);
    if (rnd() < 0.25) {
      // A range: a day, a few weeks or months, or to the end.
      const from = v.first + rnd() * (v.last - v.first);
      const to = from + rnd() * (v.last - from) * pick([0, 0.05, 0.3, 1]);
      if (rnd() < 0.8) f.from = when(from);
      f.to = when(to);
    }
    return f;
  };
  return {
    search(): { filter: SearchFilter; offset: number } {
      const words = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => {
        const r = rnd();
        return r < 0.55 ? pick(v.common) : r < 0.85 ? pick(v.middling) : pick(v.rare);
      });
      return { filter: filters({ query: words.join(' ') }) as SearchFilter, offset: rnd() < 0.2 ? Math.floor(rnd() * 2500) : 0 };
    },
    list(): { filter: MeetingFilter; offset: number } {
      // A title fragment of 1-2 characters, a piece of one word of a title, or any piece of a title.
      const r = rnd();
      const title = pick(v.titles);
      const word = pick(title.split(' ').filter((w) => w.length >= 3).concat(title));
      const query = r < 0.2 ? slice(title, 2) : r < 0.45 ? word.slice(0, 3 + Math.floor(rnd() * 3)) : r < 0.6 ? slice(title, 8) : undefined;
      const f: MeetingFilter = query === undefined ? {} : { query };
      return { filter: filters(f), offset: rnd() < 0.3 ? Math.floor(rnd() * 1500) : 0 };
    },
  };
}
