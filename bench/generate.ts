// Deterministic generator of a large Syntheo database for benchmarks.
//   node dist/bench/generate.js --meetings 100000 --words 10000000 --out bench/.data/large.db [--seed 1]
// Same arguments -> same database (ids, titles, words, timings). Progress on stderr.
import { existsSync, rmSync } from 'node:fs';
import { openDatabase } from '../src/db/open.js';
import { PASSAGE_MAX_WORDS } from '../src/db/queries/search.js';
import { setIndexesAside } from '../src/db/queries/bulk-index.js';
import { buildSearchBits } from '../src/db/queries/search-bits.js';
import { buildMeetingBits } from '../src/db/queries/meeting-bits.js';

export interface GenerateOptions {
  meetings: number;
  words: number;
  /** Words of the longest transcript (export and deep-offset benchmarks). */
  longest: number;
  seed: number;
  out: string;
  progress?: boolean;
  /**
   * One meeting per transaction with the index triggers live, as imports and loads write them: the full-text
   * indexes hold the segments FTS5's automerge leaves, not one each (bench/fts-upkeep.ts compares the two).
   */
  live?: boolean;
  /** Words said in at least this many passages (not dense) get said lists (buildSearchBits); the worker's default otherwise. */
  saidWords?: number;
}

/** mulberry32: small, fast, deterministic. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ra', 'to', 'su', 'vi', 'de', 'po', 'an', 'el', 'or', 'us', 'ti', 'ba', 'gre', 'sto', 'pla', 'mar'];
const TOPICS = ['Roadmap', 'Budget', 'Hiring', 'Launch', 'Design review', 'Retro', 'Planning', 'Customer call', 'Incident review', 'Standup', 'Offsite', 'Pricing', 'Research readout', 'Security', 'Onboarding'];
const TEAMS = ['Product', 'Engineering', 'Sales', 'Marketing', 'Finance', 'People', 'Support', 'Legal', 'Data', 'Design'];
const COMMON = ['the', 'we', 'to', 'and', 'a', 'of', 'is', 'that', 'it', 'for', 'on', 'this', 'so', 'with', 'be', 'have', 'but', 'not', 'are', 'they'];
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const WORDS_AT_ONCE = 100;

/** Seconds spent in each phase: writing the rows, building the full-text indexes, the bitmaps and counts, the final checkpoint. */
export interface GeneratePhases {
  rows: number;
  indexes: number;
  bitmaps: number;
  finish: number;
}

export function generate(o: GenerateOptions): { meetings: number; words: number; longestMeetingId: string; seconds: number; phases: GeneratePhases } {
  const started = performance.now();
  let mark = started;
  const lap = () => {
    const now = performance.now();
    const seconds = Math.round(now - mark) / 1000;
    mark = now;
    return seconds;
  };
  if (existsSync(o.out)) for (const suffix of ['', '-wal', '-shm']) rmSync(o.out + suffix, { force: true });
  const db = openDatabase(o.out, { create: true });
  const s = db.sqlite;
  s.pragma('synchronous = OFF');
  const rand = prng(o.seed);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const id = (prefix: string) => {
    let out = `${prefix}_`;
    for (let i = 0; i < 16; i++) out += ALPHABET[int(32)];
    return out;
  };
  // A vocabulary with a Zipf-like use: common words often, rare words rarely.
  const vocabulary = [...COMMON];
  while (vocabulary.length < 5000) vocabulary.push(Array.from({ length: 2 + int(3) }, () => pick(SYLLABLES)).join(''));
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(rand() * Math.log(vocabulary.length))) - 1)]!;
  const people = Array.from({ length: 2000 }, (_, i) => ({ name: `${pick(['Alex', 'Sam', 'Kim', 'Noor', 'Lea', 'Ravi', 'Ines', 'Tom', 'Yuki', 'Omar'])} ${pick(['Martin', 'Chen', 'Diallo', 'Rossi', 'Kowalski', 'Silva', 'Nguyen', 'Berg'])} ${i}`, email: `person${i}@example.test` }));
  const bar = progressBar(o.progress ?? true);
  // The full-text indexes of passages, titles and participants are built once at the end, not row by row.
  const aside = o.live ? undefined : setIndexesAside(s);
  const now = new Date('2026-11-30T00:00:00Z').toISOString();

  // Folders: teams, projects under them, and a third level for some.
  const folderIds: string[] = [];
  const insertFolder = s.prepare('INSERT INTO folders (id, path, name, parent_id, created_at) VALUES (?, ?, ?, ?, ?)');
  s.transaction(() => {
    for (const team of TEAMS) {
      const teamId = id('fld');
      insertFolder.run(teamId, team, team, null, now);
      folderIds.push(teamId);
      for (let p = 0; p < 8; p++) {
        const name = `${pick(TOPICS)} ${2022 + int(5)}-${p}`;
        const pid = id('fld');
        insertFolder.run(pid, `${team}/${name}`, name, teamId, now);
        folderIds.push(pid);
        if (p < 2)
          for (const sub of ['Notes', 'Reviews']) {
            const sid = id('fld');
            insertFolder.run(sid, `${team}/${name}/${sub}`, sub, pid, now);
            folderIds.push(sid);
          }
      }
    }
  })();

  const seriesIds = Array.from({ length: Math.max(1, Math.floor(o.meetings / 200)) }, () => id('ser'));
  const insertSeries = s.prepare('INSERT INTO series (id, title, cadence, created_at) VALUES (?, ?, ?, ?)');
  s.transaction(() => seriesIds.forEach((sid, i) => insertSeries.run(sid, `${pick(TEAMS)} ${pick(TOPICS)} weekly ${i}`, 'weekly', now)))();

  // Transcript sizes: the longest first, the rest lognormal-ish on ~30% of meetings, summing to `words`.
  const sizes = new Array<number>(o.meetings).fill(0);
  sizes[0] = Math.min(o.longest, o.words);
  let left = o.words - sizes[0]!;
  const transcribed = Math.max(1, Math.floor(o.meetings * 0.3));
  const raw = Array.from({ length: transcribed - 1 }, () => Math.exp(rand() * 2.5));
  const sum = raw.reduce((a, b) => a + b, 0);
  raw.forEach((r, i) => (sizes[1 + i * Math.floor((o.meetings - 1) / transcribed)] = Math.floor((r / sum) * left)));
  left -= sizes.reduce((a, b) => a + b, 0) - sizes[0]!;
  if (left > 0) sizes[1] = (sizes[1] ?? 0) + left;

  const ins = {
    meeting: s.prepare(
      "INSERT INTO meetings (id, title, started_at, ended_at, folder_id, series_id, note, speakers, speaker_context, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, 'demo', ?, ?)",
    ),
    summary: s.prepare("INSERT INTO summaries (id, meeting_id, title, content, position, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'llm', ?, ?)"),
    participant: s.prepare('INSERT INTO participants (id, meeting_id, name, email, role, position) VALUES (?, ?, ?, ?, NULL, ?)'),
    action: s.prepare("INSERT INTO action_items (id, meeting_id, text, assignee, due_date, done, position, source, created_at) VALUES (?, ?, ?, ?, NULL, 0, ?, 'llm', ?)"),
    transcript: s.prepare("INSERT INTO transcripts (id, meeting_id, language, source, word_count, created_at, updated_at) VALUES (?, ?, 'en', 'import', ?, ?, ?)"),
    word: s.prepare('INSERT INTO transcript_words (transcript_id, idx, text, start_ms, end_ms, speaker) VALUES (?, ?, ?, ?, ?, ?)'),
    // A transcript's words WORDS_AT_ONCE at a time: one call into SQLite instead of one a word.
    words: s.prepare(`INSERT INTO transcript_words (transcript_id, idx, text, start_ms, end_ms, speaker) VALUES ${Array(WORDS_AT_ONCE).fill('(?, ?, ?, ?, ?, ?)').join(', ')}`),
    passage: s.prepare("INSERT INTO search_passages (meeting_id, kind, ref_id, word_offset, speaker, text, tags) VALUES (?, 'transcript', ?, ?, ?, ?, ?)"),
    tags: s.prepare('SELECT search_tags FROM meetings WHERE id = ?').pluck(),
  };
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
  const start = Date.parse('2021-12-01T00:00:00Z');
  const span = Date.parse('2026-11-29T00:00:00Z') - start;
  let longestMeetingId = '';
  let wordsDone = 0;
  const batch = o.live ? 1 : 500;
  for (let from = 0; from < o.meetings; from += batch) {
    s.transaction(() => {
      s.pragma('defer_foreign_keys = ON');
      for (let i = from; i < Math.min(o.meetings, from + batch); i++) {
        const mid = id('mtg');
        if (i === 0) longestMeetingId = mid;
        const startedMs = start + Math.floor(rand() * span);
        const startedAt = new Date(startedMs).toISOString();
        const words = sizes[i]!;
        const endedAt = new Date(startedMs + Math.max(600_000, words * 400)).toISOString();
        const speakers = Array.from({ length: 2 + int(3) }, () => pick(people).name.split(' ')[0]!);
        const seriesId = rand() < 0.4 ? pick(seriesIds) : null;
        // Drawn in the generator's original order (same seed, same database as before issue 19) ...
        const meeting = [
          mid,
          `${pick(TEAMS)} ${pick(TOPICS)} #${i}`,
          startedAt,
          endedAt,
          rand() < 0.85 ? pick(folderIds) : null,
          seriesId,
          rand() < 0.3 ? `## Notes\n\n- ${sentence(12)}\n- ${sentence(9)}\n` : '',
          words ? JSON.stringify([...new Set(speakers)]) : null,
          startedAt,
          endedAt,
        ];
        const summary = [id('sum'), mid, 'Summary', `## Summary\n\n- ${sentence(20)}\n- ${sentence(15)}\n- ${sentence(18)}\n`, 0, endedAt, endedAt];
        const decisions = i % 10 === 0 ? [id('sum'), mid, 'Decisions', `## Decisions\n\n1. ${sentence(12)}\n`, 1, endedAt, endedAt] : undefined;
        const attendees = Array.from({ length: 2 + int(5) }, () => {
          const person = pick(people);
          return { person, pid: id('ppl') };
        });
        // ... but participants are written before their meeting (foreign keys deferred to the commit): the
        // meeting's search tags are computed once, at its insert, not once per participant with its passages indexed again.
        attendees.forEach(({ person, pid }, p) => ins.participant.run(pid, mid, person.name, person.email, p));
        ins.meeting.run(...meeting);
        ins.summary.run(...summary);
        if (decisions !== undefined) ins.summary.run(...decisions);
        for (let a = 0; a < int(4); a++) ins.action.run(id('act'), mid, sentence(8), pick(people).name, a, endedAt);
        if (words > 0) {
          const tags = ins.tags.get(mid) as string;
          const tid = id('trn');
          ins.transcript.run(tid, mid, words, endedAt, endedAt);
          let t = 1000;
          let turnLeft = 0;
          let speaker = speakers[0]!;
          let passage: string[] = [];
          let passageStart = 0;
          let passageSpeaker = speaker;
          const pending: (string | number)[] = [];
          for (let w = 0; w < words; w++) {
            if (turnLeft === 0) {
              speaker = pick(speakers);
              turnLeft = 5 + int(80);
              t += 600;
            }
            // Passages as Syntheo cuts them (indexTranscript): at a change of speaker, not at every turn.
            if (passage.length > 0 && (w === passageStart + PASSAGE_MAX_WORDS || speaker !== passageSpeaker)) {
              ins.passage.run(mid, tid, passageStart, passageSpeaker, passage.join(' '), tags);
              passage = [];
            }
            if (passage.length === 0) {
              passageStart = w;
              passageSpeaker = speaker;
            }
            const text = word();
            const duration = 120 + text.length * 35;
            pending.push(tid, w, text, t, t + duration, speaker);
            if (pending.length === WORDS_AT_ONCE * 6) {
              ins.words.run(pending);
              pending.length = 0;
            }
            passage.push(text);
            t += duration + 60;
            turnLeft--;
          }
          if (passage.length > 0) ins.passage.run(mid, tid, passageStart, passageSpeaker, passage.join(' '), tags);
          for (let k = 0; k < pending.length; k += 6) ins.word.run(pending.slice(k, k + 6));
          wordsDone += words;
        }
      }
    })();
    bar(Math.min(o.meetings, from + batch) / o.meetings, `${Math.min(o.meetings, from + batch)} meetings, ${wordsDone} words`);
  }
  const rows = lap();
  if (aside) {
    bar(1, 'indexing the passages', true);
    s.transaction(() => aside.restore())();
    s.exec(
      "INSERT INTO search_fts (search_fts) VALUES ('optimize'); INSERT INTO participant_words_fts (participant_words_fts) VALUES ('optimize');",
    );
  }
  const indexes = lap();
  // The search bitmaps and the ranking's counts and lengths, as the worker would build them (migrations 0015, 0016).
  bar(1, 'building the search bitmaps', true);
  buildSearchBits(s, o.saidWords === undefined ? {} : { saidWords: o.saidWords });
  // And list_meetings' bitmaps of meeting_terms (migration 0028).
  buildMeetingBits(s);
  const bitmaps = lap();
  s.pragma('optimize');
  s.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const finish = lap();
  bar(1, 'done', true);
  return { meetings: o.meetings, words: wordsDone, longestMeetingId, seconds: (performance.now() - started) / 1000, phases: { rows, indexes, bitmaps, finish } };
}
function progressBar(enabled: boolean) {
  let last = 0;
  return (fraction: number, label: string, final = false) => {
    if (!enabled) return;
    const now = Date.now();
    if (!final && now - last < 200) return;
    last = now;
    const width = 30;
    const filled = Math.round(fraction * width);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${label}`;
    process.stderr.write(process.stderr.isTTY ? `\r${line}${final ? '\n' : ''}` : `${line}\n`);
  };
}


if (import.meta.url === `file://${process.argv[1]}`) {
  const { benchArgs } = await import('./args.js');
  const values = benchArgs('generate', 'Write a large deterministic Syntheo database for the benchmarks (same arguments, same database).', {
    meetings: { type: 'string', value: 'N', default: '100000', description: 'Meetings' },
    words: { type: 'string', value: 'N', default: '10000000', description: 'Transcript words in all' },
    longest: { type: 'string', value: 'N', default: '30000', description: 'Words of the longest transcript' },
    seed: { type: 'string', value: 'N', default: '1', description: 'Random seed' },
    out: { type: 'string', value: 'FILE', default: 'bench/.data/large.db', description: 'Database file (replaced)' },
    live: { type: 'boolean', description: 'One meeting per transaction, index triggers live (as imports write): the full-text indexes as real use leaves them' },
  });
  const result = generate({ meetings: Number(values.meetings), words: Number(values.words), longest: Number(values.longest), seed: Number(values.seed), out: values.out!, live: values.live === true });
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
