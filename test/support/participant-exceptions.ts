// A database where a participant fragment is held by most names and e-mails, and a tenth of the meetings lack it in
// each way they can (test/db and test/postgres participant-exceptions).
import type { Sqlite } from '../../src/db/open.js';
import { makeMeeting, makeParticipant, makeSummary } from './factories.js';

const FOLDERS = ['Legal', 'Sales', 'Ops'];

/**
 * 400 meetings; by i % 10: no participants (0), one without an e-mail lacking `e` (1), one whose name and e-mail lack it
 * (2), such a one with one who holds it (3), two who hold it (the others, e-mails `u<i>e@example.test`: more than 32
 * words and 500 e-mails hold `e`, and every e-mail holds `le.te`). Passages of a few words, `the` in most.
 */
export function seed(s: Sqlite, passages: number): string[] {
  const meetings: string[] = [];
  s.transaction(() => {
    for (let i = 0; i < 400; i++) {
      const m = makeMeeting(s, { title: i % 4 === 0 ? `Budget ${i}` : `Sync ${i}`, folderPath: FOLDERS[i % 3], startedAt: new Date(Date.UTC(2026, 0, 1) + i * 7_200_000).toISOString() });
      const kind = i % 10;
      if (kind === 1 || kind === 3) makeParticipant(s, m, { name: 'Bo Kim', email: null });
      if (kind === 2) makeParticipant(s, m, { name: 'Bo Kim', email: `bo${i}@kim.io` });
      if (kind >= 3) makeParticipant(s, m, { name: 'Ann Lee', email: `u${i}e@example.test`, position: 1 });
      if (kind >= 4) makeParticipant(s, m, { name: 'Cy Diaz', email: `c${i}e@example.test`, position: 2 });
      meetings.push(m);
    }
    // Summaries, so that a copy to PostgreSQL (which derives the passages from them) holds the same passages.
    for (let i = 0; i < passages; i++)
      makeSummary(s, meetings[(i * 13) % meetings.length]!, { title: `S${i}`, content: `${i % 5 ? 'the ' : ''}${i % 3 ? 'and ' : ''}plan${i % 40}${i % 97 === 0 ? ' zebra' : ''}`, position: i });
  })();
  return meetings;
}

/** The meetings with a participant whose name or e-mail holds the fragment (LIKE: ASCII case folding), newest first. */
export const holding = (s: Sqlite, fragment: string): string[] =>
  s
    .prepare("SELECT m.id FROM meetings m WHERE EXISTS (SELECT 1 FROM participants p WHERE p.meeting_id = m.id AND (p.name LIKE ? OR p.email LIKE ?)) ORDER BY m.started_at DESC, m.id DESC")
    .pluck()
    .all(`%${fragment}%`, `%${fragment}%`) as string[];

/** Fragments in more than 32 words and 500 names and e-mails of the seed (`e`), or in every e-mail (`le.te`). */
export const FRAGMENTS = ['e', 'LE.TE'];

/** The other filters a list is asked with. */
export const LIST_FILTERS = [{}, { folderPath: 'Legal' }, { from: '2026-01-05', to: '2026-01-20' }, { query: 'budget' }, { query: 'Sync 1' }, { folderPath: 'Sales', query: 'sy' }];

/**
 * 200 meetings, one an hour: the 12 oldest fail `a` (no participants; `Bo Kim` without an e-mail; `Bo Kim
 * <bo<i>@kim.io>`), the others have `Ann Lee <u<i>@example.test>`, and every other one `Cy Diaz <c<i>@example.test>`
 * too. `a` is in three words (ann, example, diaz) and every recent meeting; `i` in several words (diaz, kim, io ...) and
 * half of them. Passages of a few words, `the` in most.
 */
export function seedCommonWords(s: Sqlite, passages: number): string[] {
  const meetings: string[] = [];
  s.transaction(() => {
    for (let i = 0; i < 200; i++) {
      const m = makeMeeting(s, { title: `Sync ${i}`, folderPath: FOLDERS[i % 3], startedAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString() });
      if (i < 12 && i % 3 > 0) makeParticipant(s, m, { name: 'Bo Kim', email: i % 3 === 1 ? null : `bo${i}@kim.io` });
      if (i >= 12) makeParticipant(s, m, { name: 'Ann Lee', email: `u${i}@example.test` });
      if (i >= 12 && i % 2 === 1) makeParticipant(s, m, { name: 'Cy Diaz', email: `c${i}@example.test`, position: 1 });
      meetings.push(m);
    }
    for (let i = 0; i < passages; i++)
      makeSummary(s, meetings[(i * 13) % meetings.length]!, { title: `S${i}`, content: `${i % 5 ? 'the ' : ''}${i % 3 ? 'and ' : ''}plan${i % 40}`, position: i });
  })();
  return meetings;
}

/**
 * 2,000 meetings, one an hour: in 2 of each 5, `Zq<i> Lee <zq<i>@corp.test>`, so that `zq` is in 800 words, names and
 * e-mails (more than MAX_PARTICIPANT_WORDS and MAX_PARTICIPANT_HANDLES), and fails the 1,200 others (`Bo Kim`, with
 * or without an e-mail, or no one), too many for its exceptions, recent ones among them. Passages of a few words:
 * `the` in most, `and` in two of three, `zebra` in 1 of 97.
 */
export function seedManyNames(s: Sqlite, passages: number): string[] {
  const meetings: string[] = [];
  s.transaction(() => {
    for (let i = 0; i < 2000; i++) {
      const m = makeMeeting(s, { title: `Sync ${i}`, folderPath: FOLDERS[i % 3], startedAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString() });
      if (i % 5 < 2) makeParticipant(s, m, { name: `Zq${i} Lee`, email: `zq${i}@corp.test` });
      else if (i % 5 === 2) makeParticipant(s, m, { name: 'Bo Kim', email: i % 2 ? null : `bo${i}@kim.io` });
      else if (i % 5 === 3) makeParticipant(s, m, { name: `Cy ${i}`, email: `cy${i}@corp.test` });
      meetings.push(m);
    }
    for (let i = 0; i < passages; i++)
      makeSummary(s, meetings[(i * 13) % meetings.length]!, { title: `S${i}`, content: `${i % 5 ? 'the ' : ''}${i % 3 ? 'and ' : ''}plan${i % 40}${i % 97 === 0 ? ' zebra' : ''}`, position: i });
  })();
  return meetings;
}

/**
 * seedManyNames' meetings, and in 15 of those without participants one whose name has no space: `Solo` without an
 * e-mail (10), `Duo <du o@x.io>` (5). ` ` is then in every name but two and in one e-mail: the meetings it fails (the
 * 385 without participants and Solo's 10) are found from the few names lacking it, not from the 1,200 e-mails.
 */
export function seedSpaces(s: Sqlite, passages: number): string[] {
  const meetings = seedManyNames(s, passages);
  const bare = meetings.filter((_, i) => i % 5 === 4);
  s.transaction(() => {
    for (const [i, m] of bare.slice(0, 15).entries()) makeParticipant(s, m, i < 10 ? { name: 'Solo', email: null } : { name: 'Duo', email: 'du o@x.io' });
  })();
  return meetings;
}

/**
 * seedManyNames' meetings (` lee` in the 800 names `Zq<i> Lee`, failing the 1,200 others), and `strays` names of each
 * triple of ` lee` that lack it: `Leela<k> Ray` and `Cy Le<k>x`, each in two meetings failing ` lee` and two holding it.
 */
export function seedGramStrays(s: Sqlite, passages: number, strays: number): string[] {
  const meetings = seedManyNames(s, passages);
  s.transaction(() => {
    for (let k = 0; k < strays; k++)
      // i % 5 === 3 (`Cy <i>`) and 4 (no one) fail ` lee`; 0 and 1 (`Zq<i> Lee`) hold it.
      for (const i of [(k * 50 + 3) % 2000, (k * 50 + 25) % 2000]) {
        makeParticipant(s, meetings[i]!, { name: `Leela${k} Ray`, email: null, position: 5 });
        makeParticipant(s, meetings[i + 1]!, { name: `Cy Le${k}x`, email: null, position: 6 });
      }
  })();
  return meetings;
}

/**
 * 640 meetings, one an hour: 600 with `P<i> <p<i>@corp.test>` (600 e-mails hold `.test`, and no name, so that more names
 * than e-mails lack it: the participants lacking it are read by e-mail), and the 40 oldest failing it in each way:
 * `Bo Kim <bo<i>@kim.io>`, `Cy Ng` without an e-mail, `Di Ray <di ray <i>>` whose e-mail holds no `@` (of the names lacking
 * it, no handle holding an `@`), or no one. Passages of a few words, `the` in most.
 */
export function seedOddEmails(s: Sqlite, passages: number): string[] {
  const meetings: string[] = [];
  s.transaction(() => {
    for (let i = 0; i < 640; i++) {
      const m = makeMeeting(s, { title: `Sync ${i}`, folderPath: FOLDERS[i % 3], startedAt: new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString() });
      if (i >= 40) makeParticipant(s, m, { name: `P${i}`, email: `p${i}@corp.test` });
      else if (i % 4 === 1) makeParticipant(s, m, { name: 'Bo Kim', email: `bo${i}@kim.io` });
      else if (i % 4 === 2) makeParticipant(s, m, { name: 'Cy Ng', email: null });
      else if (i % 4 === 3) makeParticipant(s, m, { name: 'Di Ray', email: `di ray ${i}` });
      meetings.push(m);
    }
    for (let i = 0; i < passages; i++)
      makeSummary(s, meetings[(i * 13) % meetings.length]!, { title: `S${i}`, content: `${i % 5 ? 'the ' : ''}plan${i % 40}`, position: i });
  })();
  return meetings;
}
