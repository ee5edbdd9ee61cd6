import { describe, expect, it } from 'vitest';
import { searchTranscripts } from '../../src/db/queries/search.js';
import { listMeetings } from '../../src/db/queries/meetings.js';
import { getTranscriptPageOrThrow, appendTranscriptWords } from '../../src/db/queries/transcripts.js';
import { applyProposalOrThrow, proposeMemoEdit, proposeSummaryEdit } from '../../src/db/queries/proposals.js';
import { loadDemoInto } from '../support/demo.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant, makeSummary, makeTranscript } from '../support/factories.js';

const db = testDbs();
const page = { limit: 10, offset: 0 };
const words = (text: string) => text.split(' ');

describe('searchTranscripts', () => {
  it('finds passages in transcripts, summaries and notes, with marked snippets', () => {
    const s = db();
    const a = makeMeeting(s, { title: 'Budget sync', note: 'Remember the **offsite** venue deposit.' });
    makeTranscript(s, a, { texts: words('so the offsite is in March and the venue needs a deposit'), speakers: ['Alice'] });
    makeSummary(s, a, { content: 'We chose the offsite venue in Lyon.' });
    const { hits, pagination } = searchTranscripts(s, { query: 'offsite venue' }, page);
    expect(hits.map((h) => h.kind).sort()).toEqual(['note', 'summary', 'transcript']);
    const transcript = hits.find((h) => h.kind === 'transcript')!;
    // The first matched word, "offsite", is the passage's third: words are 400 ms apart in the factory.
    expect(transcript).toMatchObject({ meeting_id: a, title: 'Budget sync', speaker: 'Alice', offset: 2, start_ms: 800, summary_id: null });
    expect(transcript.snippet).toBe('so the **offsite** is in March and the **venue** needs a deposit');
    expect(hits.find((h) => h.kind === 'summary')!.summary_id).toMatch(/^sum_/);
    expect(pagination).toEqual({ offset: 0, limit: 10, returned: 3, total: 3 });
  });

  it('ranks an exact phrase above the same words scattered', () => {
    const s = db();
    const scattered = makeMeeting(s, { title: 'Scattered' });
    makeTranscript(s, scattered, { texts: words('the review of the budget happened and the numbers were fine'), speakers: ['Bob'] });
    const exact = makeMeeting(s, { title: 'Exact' });
    makeTranscript(s, exact, { texts: words('we said the budget review moves to Thursday at ten with everyone present'), speakers: ['Alice'] });
    expect(searchTranscripts(s, { query: 'budget review' }, page).hits.map((h) => h.title)).toEqual(['Exact', 'Scattered']);
  });

  it('points at the first matched word: its offset (get_meeting_transcript shows it first) and start_ms', () => {
    const s = db();
    const id = makeMeeting(s);
    const texts = Array.from({ length: 500 }, (_, i) => (i === 333 ? 'kangaroo' : `word${i}`));
    makeTranscript(s, id, { texts, speakers: ['Alice', 'Bob'], turn: 40 });
    const [hit] = searchTranscripts(s, { query: 'Kangaroo' }, page).hits;
    expect(hit).toMatchObject({ offset: 333, start_ms: 333 * 400 });
    expect(hit!.speaker).toBe('Alice'); // words 320-359 are Alice's ninth turn
    const shown = getTranscriptPageOrThrow(s, id, { offset: hit!.offset!, limit: 20 });
    expect(shown.words[0]!.text).toBe('kangaroo');
  });

  it('combines the meeting filters with AND', () => {
    const s = db();
    const inFolder = makeMeeting(s, { title: 'In folder', folderPath: 'Acme/Launch', startedAt: '2026-03-10T10:00:00.000Z' });
    const outside = makeMeeting(s, { title: 'Outside', startedAt: '2026-03-10T10:00:00.000Z' });
    const tooEarly = makeMeeting(s, { title: 'Too early', folderPath: 'Acme', startedAt: '2026-01-10T10:00:00.000Z' });
    for (const id of [inFolder, outside, tooEarly]) makeTranscript(s, id, { texts: words('pricing tiers were discussed'), speakers: ['Alice'] });
    makeParticipant(s, inFolder, { name: 'Chloé Dubois', email: 'chloe@acme.test' });
    makeParticipant(s, tooEarly, { name: 'Chloé Dubois' });
    const titles = (f: Parameters<typeof searchTranscripts>[1]) => searchTranscripts(s, f, page).hits.map((h) => h.title).sort();
    expect(titles({ query: 'pricing' })).toEqual(['In folder', 'Outside', 'Too early']);
    expect(titles({ query: 'pricing', folderPath: 'Acme' })).toEqual(['In folder', 'Too early']);
    expect(titles({ query: 'pricing', folderPath: 'Acme', from: '2026-02-01' })).toEqual(['In folder']);
    expect(titles({ query: 'pricing', participant: 'chloé', to: '2026-01-10' })).toEqual(['Too early']);
    expect(titles({ query: 'pricing', participant: 'chloe@' })).toEqual(['In folder']);
    expect(titles({ query: 'pricing', participant: 'nobody' })).toEqual([]);
  });

  it('treats FTS syntax as plain text, never as an error', () => {
    const s = db();
    const id = makeMeeting(s);
    makeTranscript(s, id, { texts: words('the near term plan is not final and the star rating is minus two'), speakers: ['Alice'] });
    // Every word must be in the passage; operators and punctuation are only text (or ignored).
    const expected: [string, number][] = [
      ['"near', 1], ['star*', 1], ['-minus', 1], ['near NEAR term', 1], ['NOT final', 1], ['(plan', 1], ['^plan', 1], ['plan"', 1],
      ['plan AND OR', 0], ['col:plan', 0], ["it's", 0], ['term) OR (x', 0],
    ];
    expect(expected.map(([query]) => [query, searchTranscripts(s, { query }, page).hits.length])).toEqual(expected);
    expect(searchTranscripts(s, { query: 'NEAR term' }, page).hits).toHaveLength(1);
    expect(searchTranscripts(s, { query: 'not final' }, page).hits).toHaveLength(1);
    // Operators alone leave nothing to search for: refused with what to pass (test/db/filters.test.ts).
    expect(() => searchTranscripts(s, { query: '  *** ' }, page)).toThrow(/^The search "  \*\*\* " has no word to search for\./);
  });

  it('follows imports as words are appended, chunk by chunk', () => {
    const s = db();
    const id = makeMeeting(s);
    expect(searchTranscripts(s, { query: 'zeppelin' }, page).hits).toEqual([]);
    const chunk = (text: string, from: number) => text.split(' ').map((t, i) => ({ text: t, startMs: (from + i) * 300, endMs: (from + i) * 300 + 200, speaker: 'Alice' }));
    appendTranscriptWords(s, id, chunk('we talked about the red', 0), { source: 'import' });
    appendTranscriptWords(s, id, chunk('zeppelin exhibition', 5), { source: 'import' });
    const [hit] = searchTranscripts(s, { query: 'red zeppelin' }, page).hits;
    // The appended chunk joined the same speaker turn, so the phrase spans the chunk boundary.
    expect(hit).toMatchObject({ offset: 4, start_ms: 1200, snippet: 'we talked about the **red** **zeppelin** exhibition' });
  });

  it('follows applied proposals (summaries and notes)', () => {
    const s = db();
    const id = makeMeeting(s);
    makeSummary(s, id, { content: 'Old summary.' });
    const p = proposeSummaryEdit(s, { meetingId: id, content: 'The quarterly roadmap was approved.' });
    const m = proposeMemoEdit(s, { meetingId: id, content: 'Book the flamingo room.' });
    expect(searchTranscripts(s, { query: 'roadmap' }, page).hits).toEqual([]);
    applyProposalOrThrow(s, p.id, { force: false });
    applyProposalOrThrow(s, m.id, { force: false });
    expect(searchTranscripts(s, { query: 'roadmap' }, page).hits.map((h) => h.kind)).toEqual(['summary']);
    expect(searchTranscripts(s, { query: 'flamingo' }, page).hits.map((h) => h.kind)).toEqual(['note']);
    expect(searchTranscripts(s, { query: 'old summary' }, page).hits).toEqual([]);
  });

  it('pages through many hits', async () => {
    const s = db();
    await loadDemoInto(s.name, Date.parse('2026-11-30T12:00:00Z'));
    const first = searchTranscripts(s, { query: 'budget' }, { limit: 3, offset: 0 });
    expect(first.pagination.total).toBeGreaterThan(6);
    expect(first.pagination.next_offset).toBe(3);
    const rest = searchTranscripts(s, { query: 'budget' }, { limit: 50, offset: 3 });
    expect(rest.pagination.next_offset).toBeUndefined();
    expect(first.hits.length + rest.hits.length).toBe(first.pagination.total);
  });
});

describe('list_meetings query (trigram index)', () => {
  it('matches a case-insensitive fragment of the title or the id, wildcards literal', () => {
    const s = db();
    makeMeeting(s, { id: 'mtg_alpha0001', title: 'Réunion d’été' });
    makeMeeting(s, { id: 'mtg_beta00002', title: '100% done_ok' });
    makeMeeting(s, { id: 'mtg_gamma0003', title: '1000 dollars' });
    const q = (query: string) => listMeetings(s, { query }, page).meetings.map((m) => m.id).sort();
    expect(q('RÉUNION')).toEqual(['mtg_alpha0001']);
    expect(q('ÉTÉ')).toEqual(['mtg_alpha0001']);
    expect(q('0% d')).toEqual(['mtg_beta00002']);
    expect(q('%')).toEqual(['mtg_beta00002']);
    expect(q('e_o')).toEqual(['mtg_beta00002']);
    expect(q('_')).toEqual(['mtg_alpha0001', 'mtg_beta00002', 'mtg_gamma0003']);
    expect(q('MTG_GAMMA')).toEqual(['mtg_gamma0003']);
    expect(q('00')).toEqual(['mtg_alpha0001', 'mtg_beta00002', 'mtg_gamma0003']);
    expect(q('"quoted"')).toEqual([]);
  });

  it('follows renames and deletions', () => {
    const s = db();
    const id = makeMeeting(s, { title: 'Kickoff' });
    makeMeeting(s, { id: `${id}0`, title: 'Kickoff too' });
    s.prepare('UPDATE meetings SET title = ? WHERE id = ?').run('Retrospective', id);
    expect(listMeetings(s, { query: 'kickoff' }, page).meetings.map((m) => m.title)).toEqual(['Kickoff too']);
    expect(listMeetings(s, { query: 'retro' }, page).meetings.map((m) => m.id)).toEqual([id]);
    s.prepare('DELETE FROM meetings WHERE id = ?').run(id);
    expect(listMeetings(s, { query: 'retro' }, page).meetings).toEqual([]);
    expect(listMeetings(s, { query: 'kickoff' }, page).meetings).toHaveLength(1);
  });
});

describe('search ranking window', () => {
  it('pages through more matches than the ranked window, each hit exactly once, phrase hits first within the window', async () => {
    const { RANK_WINDOW } = await import('../../src/db/queries/search.js');
    const s = db();
    const id = makeMeeting(s);
    // One passage per speaker turn: alternate speakers, one turn of 3 words per passage.
    const n = RANK_WINDOW + 150;
    const texts: string[] = [];
    for (let i = 0; i < n; i++) texts.push(...(i % 500 === 7 ? ['solar', 'panel', `x${i}`] : ['panel', 'solar', `x${i}`]));
    makeTranscript(s, id, { texts, speakers: ['A', 'B'], turn: 3 });
    const seen: number[] = [];
    let offset = 0;
    let first: ReturnType<typeof searchTranscripts> | undefined;
    for (;;) {
      const r = searchTranscripts(s, { query: 'solar panel' }, { limit: 50, offset });
      first ??= r;
      seen.push(...r.hits.map((h) => h.offset!));
      if (r.pagination.next_offset === undefined) break;
      offset = r.pagination.next_offset;
    }
    expect(first!.pagination.total).toBe(n);
    expect(new Set(seen).size).toBe(n);
    // Exact phrases in the window (turns 507, 1007, 1507, 2007; the window holds the newest 2000 turns) come first.
    expect(first!.hits.slice(0, 4).map((h) => h.snippet)).toEqual(['**solar** **panel** x2007', '**solar** **panel** x1507', '**solar** **panel** x1007', '**solar** **panel** x507']);
  });
});
