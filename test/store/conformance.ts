// The Store conformance suite: what every engine behind src/db/store.ts must do, asserted through the
// interface alone (no SQL, no driver, no query module). Data goes in through the Store itself
// (admin.load with export records, imports.enqueue with real files). An engine runs it with
// `describeStoreConformance(name, open)`: test/store/sqlite.test.ts for SQLite; PostgreSQL next.
//
// It asserts behaviour a caller sees (values, order, paging, error kinds), never an engine detail:
// no timing, no message wording beyond the IDs it must name, no ranking beyond "exact phrase first".
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError, SyntheoError, UnavailableError } from '../../src/errors.js';
import type { JobLease, Store } from '../../src/db/store.js';
import type { MeetingExport } from '../../src/db/queries/types.js';
import { writeWav } from '../support/wav.js';
import { ALPHA_WORDS, BETA_WORDS, WEEKLY, dataset, record, timed } from './records.js';

export interface StoreUnderTest {
  store: Store;
  /** Closes the store (if still open) and removes its data. */
  cleanup(): Promise<void>;
}

/** Every transcript word the worker stores has this shape (NewWord). */
const word = (text: string, startMs: number | null = null, speaker: string | null = null) => ({ text, startMs, endMs: startMs === null ? null : startMs + 300, speaker });

const PAGE = { offset: 0, limit: 50 };
const LEASE_MS = 60_000;
/** Generous bound for waiting on a short lease to run out (no wall-clock assert: only a ceiling). */
const EXPIRY_WAIT_MS = 30_000;

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}

async function expectError(promise: Promise<unknown>, type: new (...args: never[]) => SyntheoError, ...mentions: string[]): Promise<SyntheoError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(type);
  for (const m of mentions) expect(error.message).toContain(m);
  return error as SyntheoError;
}

/**
 * Order among rows written in the same millisecond is the engine's (times are stored to the
 * millisecond): tests that assert "newest first" write their rows in distinct milliseconds.
 */
async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() === now) await sleep(1);
}

const ids = (items: readonly { id: string }[]) => items.map((m) => m.id);

export function describeStoreConformance(engineName: string, open: () => Promise<StoreUnderTest>): void {
  describe(`Store conformance: ${engineName}`, () => {
    const opened: StoreUnderTest[] = [];
    const dirs: string[] = [];
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.cleanup();
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    });

    async function fresh(): Promise<Store> {
      const s = await open();
      opened.push(s);
      return s.store;
    }

    /** A store holding the four meetings of records.ts. */
    async function loaded(): Promise<Store> {
      const store = await fresh();
      const result = await store.admin.load(dataset());
      expect(result.failed).toEqual([]);
      return store;
    }

    /** A temp dir for recordings (real files: enqueue reads them). */
    function recordings(): string {
      const dir = mkdtempSync(join(tmpdir(), 'syntheo-conformance-'));
      dirs.push(dir);
      return dir;
    }

    /** A store with a live worker and `n` queued imports of distinct files, oldest first. */
    async function queued(n: number, workerId = 'wrk_conf') {
      const store = await fresh();
      await store.workers.register({ id: workerId, concurrency: 1, version: 'test' });
      const dir = recordings();
      const jobs = [];
      for (let i = 0; i < n; i++) {
        if (i > 0) await nextMillisecond();
        jobs.push(await store.imports.enqueue({ filePath: writeWav(join(dir, `rec${i}.wav`)), title: `Recording ${i}` }));
      }
      const lease = (jobId: string, leaseMs = LEASE_MS): JobLease => ({ jobId, workerId, leaseMs });
      return { store, dir, jobs, lease };
    }

    describe('the store', () => {
      it('names its engine and a printable location', async () => {
        const store = await fresh();
        expect(['sqlite', 'postgres']).toContain(store.engine);
        expect(typeof store.location).toBe('string');
        expect(store.location).not.toMatch(/:[^/@:]+@/); // no password in a URL
      });

      it('starts empty', async () => {
        const store = await fresh();
        expect(await store.meetings.list({}, PAGE)).toEqual({ meetings: [], pagination: { offset: 0, limit: 50, returned: 0, total: 0 } });
        expect(await store.folders.paths()).toEqual([]);
        expect(await store.meetings.counts()).toEqual({ meetings: 0, folders: 0, pending_proposals: 0, active_imports: 0 });
        expect(await store.settings.read()).toEqual({});
        expect(await store.workers.latest()).toBeNull();
        expect(await store.jobs.hasQueued()).toBe(false);
      });
    });

    describe('meetings', () => {
      it('lists newest first with exact totals and pages that join up', async () => {
        const store = await loaded();
        const all = await store.meetings.list({}, PAGE);
        expect(ids(all.meetings)).toEqual(['mtg_gamma', 'mtg_beta', 'mtg_alpha', 'mtg_delta']);
        expect(all.pagination).toEqual({ offset: 0, limit: 50, returned: 4, total: 4 });
        const first = await store.meetings.list({}, { offset: 0, limit: 3 });
        expect(first.pagination).toEqual({ offset: 0, limit: 3, returned: 3, total: 4, next_offset: 3 });
        const second = await store.meetings.list({}, { offset: 3, limit: 3 });
        expect(second.pagination).toEqual({ offset: 3, limit: 3, returned: 1, total: 4 });
        expect([...ids(first.meetings), ...ids(second.meetings)]).toEqual(ids(all.meetings));
        expect((await store.meetings.list({}, { offset: 10, limit: 3 })).pagination).toEqual({ offset: 10, limit: 3, returned: 0, total: 4 });
      });

      it('list items carry folder, series, transcript size, summary count and no import', async () => {
        const store = await loaded();
        const { meetings } = await store.meetings.list({}, PAGE);
        const byId = new Map(meetings.map((m) => [m.id, m]));
        expect(byId.get('mtg_alpha')).toEqual({
          id: 'mtg_alpha',
          title: 'Budget review Q3',
          started_at: '2026-03-02T09:00:00.000Z',
          ended_at: '2026-03-02T09:30:00.000Z',
          folder_path: 'Projets/Budget',
          series_id: 'ser_weekly',
          transcript_word_count: ALPHA_WORDS.length,
          summary_count: 1,
          processing_status: null,
        });
        expect(byId.get('mtg_gamma')).toMatchObject({ folder_path: 'Équipe', series_id: null, transcript_word_count: 0, summary_count: 2 });
        expect(byId.get('mtg_delta')).toMatchObject({ folder_path: null, series_id: null, transcript_word_count: 0, summary_count: 0 });
      });

      it('query: a fragment of the title or the ID, case-insensitive, % literal, beyond ASCII', async () => {
        const store = await loaded();
        const q = async (query: string) => ids((await store.meetings.list({ query }, PAGE)).meetings);
        expect(await q('budget')).toEqual(['mtg_alpha']);
        expect(await q('BUDGET REV')).toEqual(['mtg_alpha']);
        expect(await q('mtg_gam')).toEqual(['mtg_gamma']);
        expect(await q('0%')).toEqual(['mtg_delta']);
        expect(await q('%')).toEqual(['mtg_delta']);
        expect(await q('ÉQUIPE')).toEqual(['mtg_gamma']);
        expect(await q('e\u0301quipe')).toEqual(['mtg_gamma']); // NFD input, NFC title
        expect(await q('É')).toEqual(['mtg_gamma']); // shorter than a trigram
        expect(await q('la')).toEqual(['mtg_beta']);
        expect(await q('nothing like it')).toEqual([]);
        expect((await store.meetings.list({ query: 'budget' }, PAGE)).pagination.total).toBe(1);
        expect(await q('')).toHaveLength(4);
        // `_` is literal too (short fragments and trigram ones).
        await store.admin.load([record({ id: 'mtg_epsilon', title: 'Retro_v2', started_at: '2026-01-10T10:00:00.000Z' })]);
        expect(await q('o_')).toEqual(['mtg_epsilon']);
        expect(await q('O_V')).toEqual(['mtg_epsilon']);
        expect(await q('%')).toEqual(['mtg_delta']);
      });

      it('filters: series, folder with subfolders, dates, participant; they combine', async () => {
        const store = await loaded();
        const q = async (filter: Parameters<Store['meetings']['list']>[0]) => ids((await store.meetings.list(filter, PAGE)).meetings);
        expect(await q({ seriesId: 'ser_weekly' })).toEqual(['mtg_beta', 'mtg_alpha']);
        expect(await q({ folderPath: 'Projets' })).toEqual(['mtg_beta', 'mtg_alpha']);
        expect(await q({ folderPath: 'Projets/Budget' })).toEqual(['mtg_alpha']);
        expect(await q({ folderPath: ' projets / budget ' })).toEqual(['mtg_alpha']); // normalised, case-insensitive when unambiguous
        expect(await q({ from: '2026-03-09' })).toEqual(['mtg_gamma', 'mtg_beta']);
        expect(await q({ to: '2026-03-09' })).toEqual(['mtg_beta', 'mtg_alpha', 'mtg_delta']); // a bare date includes its day
        expect(await q({ from: '2026-03-02T09:00:00Z', to: '2026-03-09T08:59:59Z' })).toEqual(['mtg_alpha']);
        expect(await q({ from: '2026-03-02T10:00:00+01:00', to: '2026-03-02T09:00:00Z' })).toEqual(['mtg_alpha']); // zones
        expect(await q({ participant: 'grace' })).toEqual(['mtg_beta', 'mtg_alpha']);
        expect(await q({ participant: 'EXAMPLE.COM' })).toEqual(['mtg_alpha']);
        expect(await q({ participant: 'zoë' })).toEqual(['mtg_gamma']);
        expect(await q({ participant: 'Zo' })).toEqual(['mtg_gamma']);
        expect(await q({ participant: 'grace', folderPath: 'Projets/Lancement' })).toEqual(['mtg_beta']);
        expect(await q({ seriesId: 'ser_weekly', query: 'launch' })).toEqual(['mtg_beta']);
        const paged = await store.meetings.list({ seriesId: 'ser_weekly' }, { offset: 0, limit: 1 });
        expect(paged.pagination).toEqual({ offset: 0, limit: 1, returned: 1, total: 2, next_offset: 1 });
      });

      it('filters refuse an unknown series or folder and impossible dates', async () => {
        const store = await loaded();
        await expectError(store.meetings.list({ seriesId: 'ser_nope' }, PAGE), NotFoundError, 'ser_nope');
        await expectError(store.meetings.list({ folderPath: 'Nowhere' }, PAGE), NotFoundError, 'Nowhere');
        await expectError(store.meetings.list({ from: '2026-03-10', to: '2026-03-01' }, PAGE), InvalidInputError);
        await expectError(store.meetings.list({ from: '2026-02-30' }, PAGE), InvalidInputError);
        await expectError(store.meetings.list({ to: 'yesterday' }, PAGE), InvalidInputError);
      });

      it('get: the meeting with its note, summaries, participants, action items and transcript size', async () => {
        const store = await loaded();
        const alpha = dataset()[0]!;
        const { format: _f, transcripts: _t, ...fields } = alpha;
        const detail = await store.meetings.get('mtg_alpha');
        expect(detail).toEqual({
          ...fields,
          transcript: { id: 'trn_alpha', language: 'en', word_count: ALPHA_WORDS.length, timing: 'measured' },
          pending_proposal_count: 0,
          processing_status: null,
          recording_import: null,
        });
        expect((await store.meetings.get('mtg_beta')).transcript).toMatchObject({ timing: 'estimated' });
        const delta = await store.meetings.get('mtg_delta');
        expect(delta).toMatchObject({ transcript: null, summaries: [], participants: [], action_items: [], series: null, folder_path: null });
        expect(delta).not.toHaveProperty('speakers');
        expect(delta).not.toHaveProperty('speaker_context');
      });

      it('get, export and series history refuse an unknown ID, naming it', async () => {
        const store = await loaded();
        const e = await expectError(store.meetings.get('mtg_missing'), NotFoundError, 'mtg_missing');
        expect(e.kind).toBe('not_found');
        await expectError(store.meetings.export('mtg_missing'), NotFoundError, 'mtg_missing');
        await expectError(store.series.history('mtg_missing', PAGE), NotFoundError, 'mtg_missing');
        await expectError(store.transcripts.page('mtg_missing', PAGE), NotFoundError, 'mtg_missing');
        await expectError(store.proposals.get('prp_missing'), NotFoundError, 'prp_missing');
        await expectError(store.imports.get('job_missing'), NotFoundError, 'job_missing');
        await expectError(store.series.get('ser_missing'), NotFoundError, 'ser_missing');
        await expectError(store.folders.get('Missing/Folder'), NotFoundError, 'Missing/Folder');
        // An ID of another kind is still "not found" (the message may say what it is).
        await expectError(store.meetings.get('ser_weekly'), NotFoundError, 'ser_weekly');
      });

      it('title, current content of a proposal target, counts', async () => {
        const store = await loaded();
        expect(await store.meetings.title('mtg_gamma')).toBe("Café avec l'équipe");
        expect(await store.meetings.title('mtg_missing')).toBeNull();
        expect(await store.meetings.currentContent({ kind: 'memo', meetingId: 'mtg_alpha', targetId: null })).toBe('Budget note: spend less on travel.');
        expect(await store.meetings.currentContent({ kind: 'memo', meetingId: 'mtg_delta', targetId: null })).toBe('');
        expect(await store.meetings.currentContent({ kind: 'summary', meetingId: 'mtg_gamma', targetId: 'sum_gamma2' })).toBe('Deuxième version');
        expect(await store.meetings.currentContent({ kind: 'summary', meetingId: 'mtg_gamma', targetId: null })).toBeNull();
        expect(await store.meetings.currentContent({ kind: 'summary', meetingId: 'mtg_gamma', targetId: 'sum_gone' })).toBeNull();
        expect(await store.meetings.currentContent({ kind: 'memo', meetingId: 'mtg_missing', targetId: null })).toBeNull();
        expect(await store.meetings.counts()).toEqual({ meetings: 4, folders: 4, pending_proposals: 0, active_imports: 0 });
      });
    });

    describe('folders', () => {
      it('list: tree order with parents and empty folders, names, parent paths, direct meeting counts', async () => {
        const store = await loaded();
        await store.folders.ensure('Archive/2025');
        const { folders, pagination } = await store.folders.list({}, PAGE);
        expect(folders.map(({ id: _id, ...f }) => f)).toEqual([
          { path: 'Archive', name: 'Archive', parent_path: null, meeting_count: 0 },
          { path: 'Archive/2025', name: '2025', parent_path: 'Archive', meeting_count: 0 },
          { path: 'Projets', name: 'Projets', parent_path: null, meeting_count: 0 },
          { path: 'Projets/Budget', name: 'Budget', parent_path: 'Projets', meeting_count: 1 },
          { path: 'Projets/Lancement', name: 'Lancement', parent_path: 'Projets', meeting_count: 1 },
          { path: 'Équipe', name: 'Équipe', parent_path: null, meeting_count: 1 },
        ]);
        expect(pagination).toEqual({ offset: 0, limit: 50, returned: 6, total: 6 });
        for (const f of folders) expect(f.id).toMatch(/^fld_/);
        const page = await store.folders.list({}, { offset: 2, limit: 2 });
        expect(page.folders.map((f) => f.path)).toEqual(['Projets', 'Projets/Budget']);
        expect(page.pagination).toEqual({ offset: 2, limit: 2, returned: 2, total: 6, next_offset: 4 });
      });

      it('list query: a fragment of the path, case-insensitive beyond ASCII', async () => {
        const store = await loaded();
        const q = async (query: string) => (await store.folders.list({ query }, PAGE)).folders.map((f) => f.path);
        expect(await q('PROJETS/')).toEqual(['Projets/Budget', 'Projets/Lancement']);
        expect(await q('équipe')).toEqual(['Équipe']);
        expect(await q('ÉQUIPE')).toEqual(['Équipe']);
        expect(await q('%')).toEqual([]);
        expect((await store.folders.list({ query: 'udg' }, PAGE)).pagination.total).toBe(1);
      });

      it('ensure creates missing parents, normalises, is idempotent; get finds by path', async () => {
        const store = await fresh();
        const made = await store.folders.ensure(' Clients / Acme /Kick-off ');
        expect(made.path).toBe('Clients/Acme/Kick-off');
        expect(made.id).toMatch(/^fld_/);
        expect(await store.folders.ensure('Clients/Acme/Kick-off')).toEqual(made);
        expect(await store.folders.paths()).toEqual(['Clients', 'Clients/Acme', 'Clients/Acme/Kick-off']);
        expect(await store.folders.get('Clients/Acme/Kick-off')).toEqual(made);
        expect(await store.folders.get('clients/acme/kick-off')).toEqual(made);
        expect((await store.folders.get('Clients')).path).toBe('Clients');
        // NFD input finds the NFC folder.
        const cafe = await store.folders.ensure('Café');
        expect(await store.folders.get('Cafe\u0301')).toEqual(cafe);
        expect(await store.folders.ensure('Cafe\u0301')).toEqual(cafe);
      });

      it('ensure refuses empty paths and empty segments', async () => {
        const store = await fresh();
        await expectError(store.folders.ensure('  '), InvalidInputError);
        await expectError(store.folders.ensure('A//B'), InvalidInputError);
        expect(await store.folders.paths()).toEqual([]);
      });

      it('existing and paths (code-point order)', async () => {
        const store = await loaded();
        expect(await store.folders.existing(['Projets', 'Projets/Budget', 'Nope', 'Équipe'])).toEqual(new Set(['Projets', 'Projets/Budget', 'Équipe']));
        expect(await store.folders.existing([])).toEqual(new Set());
        const paths = await store.folders.paths();
        expect(paths).toEqual(['Projets', 'Projets/Budget', 'Projets/Lancement', 'Équipe']);
        expect(paths).toEqual([...paths].sort());
      });
    });

    describe('series', () => {
      it('get, history newest first with paging, meetings of a series', async () => {
        const store = await loaded();
        expect(await store.series.get('ser_weekly')).toEqual(WEEKLY);
        const history = await store.series.history('mtg_alpha', PAGE);
        expect(history.meeting_id).toBe('mtg_alpha');
        expect(history.series).toEqual(WEEKLY);
        expect(ids(history.meetings)).toEqual(['mtg_beta', 'mtg_alpha']);
        expect(history.pagination).toEqual({ offset: 0, limit: 50, returned: 2, total: 2 });
        const second = await store.series.history('mtg_beta', { offset: 1, limit: 1 });
        expect(ids(second.meetings)).toEqual(['mtg_alpha']);
        expect(second.pagination).toEqual({ offset: 1, limit: 1, returned: 1, total: 2 });
        const meetings = await store.series.meetings('ser_weekly', { offset: 0, limit: 1 });
        expect(ids(meetings.meetings)).toEqual(['mtg_beta']);
        expect(meetings.total).toBe(2);
      });

      it('a meeting of no series has an empty history', async () => {
        const store = await loaded();
        expect(await store.series.history('mtg_gamma', PAGE)).toEqual({
          meeting_id: 'mtg_gamma',
          series: null,
          meetings: [],
          pagination: { offset: 0, limit: 50, returned: 0, total: 0 },
        });
      });
    });

    describe('transcripts', () => {
      it('a page of words with times and speakers, its text one line per turn, paging by words', async () => {
        const store = await loaded();
        const page = await store.transcripts.page('mtg_alpha', { offset: 0, limit: 8 });
        expect(page.meeting_id).toBe('mtg_alpha');
        expect(page.words).toEqual(ALPHA_WORDS.slice(0, 8).map(([text, start_ms, end_ms, speaker], index) => ({ index, text, start_ms, end_ms, speaker })));
        expect(page.text).toBe('[00:01] Ada: good morning everyone thanks for joining\n[00:04] Grace: review review');
        expect(page.pagination).toEqual({ offset: 0, limit: 8, returned: 8, total: ALPHA_WORDS.length, next_offset: 8 });
        expect(page).not.toHaveProperty('timing'); // measured: said only when not
        const last = await store.transcripts.page('mtg_alpha', { offset: ALPHA_WORDS.length - 3, limit: 8 });
        expect(last.words.map((w) => w.text)).toEqual(['room', 'is', 'free']);
        expect(last.pagination).toEqual({ offset: ALPHA_WORDS.length - 3, limit: 8, returned: 3, total: ALPHA_WORDS.length });
        const beyond = await store.transcripts.page('mtg_alpha', { offset: 1000, limit: 8 });
        expect(beyond).toMatchObject({ text: '', words: [], pagination: { offset: 1000, limit: 8, returned: 0, total: ALPHA_WORDS.length } });
      });

      it('without word timings: one [offset, start_ms] per turn line; estimated times are said', async () => {
        const store = await loaded();
        const page = await store.transcripts.page('mtg_beta', { offset: 3, limit: 20 }, { wordTimings: false });
        const starts = (i: number) => BETA_WORDS[i]![1];
        expect(page.words).toEqual([
          [3, starts(3)],
          [6, starts(6)],
        ]);
        expect(page.text).toBe(`[00:02] Grace: moves to April\n[00:04] Linus: marketing needs the final name before the launch`);
        expect(page.timing).toBe('estimated');
        expect(page.pagination).toEqual({ offset: 3, limit: 20, returned: BETA_WORDS.length - 3, total: BETA_WORDS.length });
      });

      it('a meeting without a transcript has an empty one; allWords and wordCount', async () => {
        const store = await loaded();
        expect(await store.transcripts.page('mtg_delta', PAGE)).toEqual({ meeting_id: 'mtg_delta', text: '', words: [], pagination: { offset: 0, limit: 50, returned: 0, total: 0 } });
        expect(await store.transcripts.allWords('mtg_delta')).toBeNull();
        expect(await store.transcripts.wordCount('mtg_delta')).toBe(0);
        expect(await store.transcripts.wordCount('mtg_missing')).toBe(0);
        expect(await store.transcripts.allWords('mtg_alpha')).toEqual(ALPHA_WORDS.map(([text, start, end, speaker], i) => [i, text, start, end, speaker]));
        expect(await store.transcripts.wordCount('mtg_alpha')).toBe(ALPHA_WORDS.length);
      });

      it('words without times or speaker read as null and lines without a stamp or name', async () => {
        const store = await fresh();
        const r = record({ id: 'mtg_plain', title: 'Plain', started_at: '2026-01-01T00:00:00.000Z', words: [['just', null, null, null], ['words', null, null, null], ['said', 2_000, 2_300, 'Ada']] });
        await store.admin.load([r]);
        const page = await store.transcripts.page('mtg_plain', PAGE);
        expect(page.text).toBe('just words\n[00:02] Ada: said');
        expect(page.words[0]).toEqual({ index: 0, text: 'just', start_ms: null, end_ms: null, speaker: null });
        expect((await store.transcripts.page('mtg_plain', PAGE, { wordTimings: false })).words).toEqual([
          [0, null],
          [2, 2_000],
        ]);
      });
    });

    describe('search', () => {
      const search = (store: Store, query: string, filter: Record<string, string> = {}, page = PAGE) => store.search.transcripts({ query, ...filter }, page);

      it('finds passages holding every word; the exact phrase ranks first; hits point at the first matched word', async () => {
        const store = await loaded();
        const { hits, pagination } = await search(store, 'budget review');
        expect(pagination).toEqual({ offset: 0, limit: 50, returned: 3, total: 3 });
        for (const hit of hits) expect(hit).toMatchObject({ meeting_id: 'mtg_alpha', title: 'Budget review Q3', started_at: '2026-03-02T09:00:00.000Z', kind: 'transcript', summary_id: null });
        // Phrase passages (Ada's turns) first, whatever their score; the words apart ("review review budget budget") last.
        expect(hits.map((h) => h.speaker)).toEqual(['Ada', 'Ada', 'Grace']);
        const texts = ALPHA_WORDS.map((w) => w[0]);
        const phraseAt = texts.flatMap((t, i) => (t === 'budget' && texts[i + 1] === 'review' ? [i] : []));
        expect(phraseAt).toHaveLength(2);
        expect(new Set(hits.slice(0, 2).map((h) => h.offset))).toEqual(new Set(phraseAt));
        expect(hits[2]!.offset).toBe(texts.indexOf('review'));
        for (const hit of hits) {
          expect(hit.start_ms).toBe(ALPHA_WORDS[hit.offset!]![1]);
          expect(hit.snippet).toMatch(/\*\*budget\*\*/i);
          expect(hit.snippet).toMatch(/\*\*review\*\*/i);
        }
        // The turn that says only "budget" is no hit.
        expect(hits.some((h) => h.snippet.includes('tight'))).toBe(false);
      });

      it('is case-insensitive and pages consistently', async () => {
        const store = await loaded();
        const all = (await search(store, 'budget review')).hits;
        expect((await search(store, 'BUDGET Review')).hits).toEqual(all);
        const first = await search(store, 'budget review', {}, { offset: 0, limit: 2 });
        const rest = await search(store, 'budget review', {}, { offset: 2, limit: 2 });
        expect(first.pagination).toEqual({ offset: 0, limit: 2, returned: 2, total: 3, next_offset: 2 });
        expect(rest.pagination).toEqual({ offset: 2, limit: 2, returned: 1, total: 3 });
        expect([...first.hits, ...rest.hits]).toEqual(all);
      });

      it('input is plain text: quotes, *, -, NEAR, AND/OR are words or nothing, never operators', async () => {
        const store = await loaded();
        const plain = (await search(store, 'budget review')).hits;
        expect((await search(store, '"budget" "review"')).hits).toEqual(plain);
        expect((await search(store, 'budget* review*')).hits).toEqual(plain);
        expect((await search(store, '(budget) -review')).hits).toEqual(plain);
        expect((await search(store, 'budg*')).hits).toEqual([]); // no prefix search
        // NEAR is the word "near": one passage says it.
        const near = await search(store, 'budget NEAR review');
        expect(near.hits).toHaveLength(1);
        expect(ALPHA_WORDS[near.hits[0]!.offset!]![0]).toBe('near');
        expect((await search(store, 'NEAR(budget review)')).hits).toEqual(near.hits);
        expect((await search(store, 'budget OR launch')).hits).toEqual([]); // every word, "or" included
        expect((await search(store, 'launch')).hits.map((h) => h.meeting_id)).toEqual(['mtg_beta', 'mtg_beta']);
      });

      it("cuts a long passage around its matches as FTS5's snippet() does, on every engine", async () => {
        const store = await loaded();
        // A turn of 30 words in three sentences (`.` and `:` end them): a window of 24 words, centred on the matches but
        // not past the end, or from the start of a sentence that holds them too; an ellipsis where the passage goes on;
        // the hit at the first match. The snippets are FTS5's own for this text.
        const turn = 'first we agree on the date. then the team checks every number in the plan: the budget, the hiring and the travel, and the finance lead signs the final sheet';
        await store.admin.load([record({ id: 'mtg_cut', title: 'Cut', started_at: '2026-04-01T09:00:00.000Z', words: timed([['Ada', turn]]) })]);
        const cut = async (query: string) => (await search(store, query)).hits.map((h) => [h.snippet, h.offset]);
        const at = (word: string) => turn.split(' ').indexOf(word);
        expect(await cut('sheet')).toEqual([['…the budget, the hiring and the travel, and the finance lead signs the final **sheet**', at('sheet')]]);
        expect(await cut('team hiring')).toEqual([['…then the **team** checks every number in the plan: the budget, the **hiring** and the travel, and the finance lead signs the final sheet', at('team')]]);
        expect(await cut('agree')).toEqual([['first we **agree** on the date. then the team checks every number in the plan: the budget, the hiring and the travel, and the…', at('agree')]]);
      });

      it('refuses a query with no word in it', async () => {
        const store = await loaded();
        for (const query of ['', '   ', '"', '*', '- -', '()']) await expectError(search(store, query), InvalidInputError);
      });

      it('finds summaries and notes too, with their kind', async () => {
        const store = await loaded();
        const summary = (await search(store, 'roadmap')).hits;
        expect(summary).toEqual([expect.objectContaining({ meeting_id: 'mtg_alpha', kind: 'summary', summary_id: 'sum_alpha', offset: null, start_ms: null })]);
        expect(summary[0]!.snippet).toContain('**roadmap**');
        const note = (await search(store, 'travel')).hits;
        expect(note).toEqual([expect.objectContaining({ meeting_id: 'mtg_alpha', kind: 'note', summary_id: null, offset: null, start_ms: null })]);
        expect((await search(store, 'Deuxième')).hits).toEqual([expect.objectContaining({ meeting_id: 'mtg_gamma', kind: 'summary', summary_id: 'sum_gamma2' })]);
      });

      it('takes the meeting filters of list_meetings', async () => {
        const store = await loaded();
        expect((await search(store, 'the', { folderPath: 'Projets/Lancement' })).hits.map((h) => h.meeting_id)).toEqual(['mtg_beta', 'mtg_beta']);
        expect((await search(store, 'launch', { seriesId: 'ser_weekly', participant: 'linus' })).pagination.total).toBe(2);
        expect((await search(store, 'launch', { participant: 'ada' })).hits).toEqual([]);
        expect((await search(store, 'launch', { to: '2026-03-08' })).hits).toEqual([]);
        await expectError(search(store, 'launch', { folderPath: 'Nowhere' }), NotFoundError);
      });

      it('follows what changes: a replaced meeting is searched as it is now', async () => {
        const store = await loaded();
        const changed = { ...dataset()[1]!, transcripts: [] as MeetingExport['transcripts'], note: 'Launch moved to May' };
        await store.admin.load([changed]);
        const hits = (await search(store, 'launch')).hits;
        expect(hits).toEqual([expect.objectContaining({ meeting_id: 'mtg_beta', kind: 'note' })]);
      });
    });

    describe('proposals', () => {
      it('a summary edit targets the only summary; listing, getting, the diff', async () => {
        const store = await loaded();
        const p = await store.proposals.proposeSummaryEdit({ meetingId: 'mtg_alpha', content: '## Budget\n\n- Finance sends the numbers on Friday\n', proposedBy: 'claude' });
        expect(p).toMatchObject({
          meeting_id: 'mtg_alpha',
          meeting_title: 'Budget review Q3',
          kind: 'summary',
          target_id: 'sum_alpha',
          status: 'pending',
          stale: false,
          proposed_by: 'claude',
          decided_at: null,
          content: '## Budget\n\n- Finance sends the numbers on Friday\n',
          base_content: '## Budget\n\n- Finance sends the numbers\n- The roadmap waits\n',
        });
        expect(p.id).toMatch(/^prp_/);
        expect(p.diff).toContain('-- Finance sends the numbers\n');
        expect(p.diff).toContain('+- Finance sends the numbers on Friday\n');
        expect(await store.proposals.get(p.id)).toEqual(p);
        const { content: _c, base_content: _b, diff: _d, ...item } = p;
        expect(await store.proposals.list({ status: 'pending' }, PAGE)).toEqual({ proposals: [item], pagination: { offset: 0, limit: 50, returned: 1, total: 1 } });
        expect((await store.meetings.get('mtg_alpha')).pending_proposal_count).toBe(1);
        expect((await store.meetings.counts()).pending_proposals).toBe(1);
      });

      it('a summary edit: several summaries need target_id; a foreign target is not found; no summary makes a new one', async () => {
        const store = await loaded();
        await expectError(store.proposals.proposeSummaryEdit({ meetingId: 'mtg_gamma', content: 'x' }), ConflictError, 'sum_gamma1', 'sum_gamma2');
        await expectError(store.proposals.proposeSummaryEdit({ meetingId: 'mtg_gamma', content: 'x', targetId: 'sum_alpha' }), NotFoundError, 'sum_alpha');
        await expectError(store.proposals.proposeSummaryEdit({ meetingId: 'mtg_missing', content: 'x' }), NotFoundError, 'mtg_missing');
        const targeted = await store.proposals.proposeSummaryEdit({ meetingId: 'mtg_gamma', content: 'Troisième version', targetId: 'sum_gamma2' });
        expect(targeted).toMatchObject({ target_id: 'sum_gamma2', base_content: 'Deuxième version', proposed_by: null });

        const created = await store.proposals.proposeSummaryEdit({ meetingId: 'mtg_delta', content: 'What went well' });
        expect(created).toMatchObject({ target_id: null, base_content: null, stale: false });
        const applied = await store.proposals.apply(created.id, { force: false });
        expect(applied.status).toBe('applied');
        expect(applied.decided_at).not.toBeNull();
        const summaries = (await store.meetings.get('mtg_delta')).summaries;
        expect(summaries).toEqual([expect.objectContaining({ content: 'What went well' })]);
        expect(applied.target_id).toBe(summaries[0]!.id); // the proposal points at the summary it made
      });

      it('refuses empty, oversized and unchanged content', async () => {
        const store = await loaded();
        await expectError(store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: '  \n' }), InvalidInputError);
        await expectError(store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: 'x'.repeat(1024 * 1024 + 1) }), InvalidInputError); // 1 MiB limit
        await expectError(store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: 'Budget note: spend less on travel.' }), ConflictError);
        await expectError(store.proposals.proposeSummaryEdit({ meetingId: 'mtg_alpha', content: '## Budget\n\n- Finance sends the numbers\n- The roadmap waits\n' }), ConflictError);
        expect((await store.proposals.list({ status: 'all' }, PAGE)).proposals).toEqual([]);
      });

      it('a memo edit applied replaces the note; a decided proposal cannot be decided again', async () => {
        const store = await loaded();
        const p = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: 'New note' });
        expect(p).toMatchObject({ kind: 'memo', target_id: null, base_content: 'Budget note: spend less on travel.', stale: false });
        expect((await store.proposals.apply(p.id, { force: false })).status).toBe('applied');
        expect((await store.meetings.get('mtg_alpha')).note).toBe('New note');
        expect((await store.meetings.get('mtg_alpha')).pending_proposal_count).toBe(0);
        await expectError(store.proposals.apply(p.id, { force: false }), ConflictError, p.id);
        await expectError(store.proposals.decline(p.id), ConflictError, p.id);
        await expectError(store.proposals.apply('prp_missing', { force: false }), NotFoundError, 'prp_missing');
        await expectError(store.proposals.decline('prp_missing'), NotFoundError, 'prp_missing');
      });

      it('decline leaves the meeting as it was', async () => {
        const store = await loaded();
        const before = await store.meetings.export('mtg_alpha');
        const p = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: 'Declined note' });
        const declined = await store.proposals.decline(p.id);
        expect(declined).toMatchObject({ status: 'declined', stale: false });
        expect(declined.decided_at).not.toBeNull();
        expect(await store.meetings.export('mtg_alpha')).toEqual(before);
        await expectError(store.proposals.apply(p.id, { force: true }), ConflictError);
      });

      it('stale: a target changed since the proposal conflicts unless forced; a deleted target always does', async () => {
        const store = await loaded();
        const memo = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: 'Proposed note' });
        const summary = await store.proposals.proposeSummaryEdit({ meetingId: 'mtg_gamma', content: 'Autre version', targetId: 'sum_gamma1' });
        const [alpha, , gamma] = dataset();
        await store.admin.load([
          { ...alpha!, note: 'Someone edited the note' },
          { ...gamma!, summaries: gamma!.summaries.filter((s) => s.id !== 'sum_gamma1') },
        ]);
        expect((await store.proposals.get(memo.id)).stale).toBe(true);
        expect((await store.proposals.get(summary.id)).stale).toBe(true);
        expect((await store.proposals.list({ status: 'pending' }, PAGE)).proposals.map((p) => p.stale)).toEqual([true, true]);
        const conflict = await expectError(store.proposals.apply(memo.id, { force: false }), ConflictError);
        expect(conflict.kind).toBe('conflict');
        expect((await store.meetings.get('mtg_alpha')).note).toBe('Someone edited the note');
        const forced = await store.proposals.apply(memo.id, { force: true });
        expect(forced).toMatchObject({ status: 'applied', stale: false });
        expect((await store.meetings.get('mtg_alpha')).note).toBe('Proposed note');
        await expectError(store.proposals.apply(summary.id, { force: true }), ConflictError, 'sum_gamma1');
        expect((await store.proposals.get(summary.id)).status).toBe('pending');
      });

      it('stale compares content, not edits: a target changed and changed back is not stale', async () => {
        const store = await loaded();
        const memo = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: 'Proposed note' });
        const [alpha] = dataset();
        await store.admin.load([{ ...alpha!, note: 'Edited' }]);
        expect((await store.proposals.get(memo.id)).stale).toBe(true);
        await store.admin.load([alpha!]);
        expect((await store.proposals.get(memo.id)).stale).toBe(false);
        expect((await store.proposals.apply(memo.id, { force: false })).status).toBe('applied');
      });

      it('applied content is searched at once; what it replaced is not', async () => {
        const store = await loaded();
        const summary = await store.proposals.proposeSummaryEdit({ meetingId: 'mtg_alpha', content: 'Quarterly spending approved unanimously' });
        const memo = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_gamma', content: 'Croissants were excellent' });
        expect((await store.search.transcripts({ query: 'unanimously' }, PAGE)).hits).toEqual([]);
        await store.proposals.apply(summary.id, { force: false });
        await store.proposals.apply(memo.id, { force: false });
        expect((await store.search.transcripts({ query: 'unanimously' }, PAGE)).hits).toEqual([expect.objectContaining({ meeting_id: 'mtg_alpha', kind: 'summary', summary_id: 'sum_alpha' })]);
        expect((await store.search.transcripts({ query: 'roadmap' }, PAGE)).hits).toEqual([]);
        expect((await store.search.transcripts({ query: 'croissants' }, PAGE)).hits).toEqual([expect.objectContaining({ meeting_id: 'mtg_gamma', kind: 'note' })]);
        expect((await store.search.transcripts({ query: 'Notes du café' }, PAGE)).hits).toEqual([]);
      });

      it('list: newest first, by status and meeting, paged; unknown meeting refused', async () => {
        const store = await loaded();
        const a = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: 'one' });
        await nextMillisecond();
        const b = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_beta', content: 'two' });
        await nextMillisecond();
        const c = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_alpha', content: 'three' });
        await store.proposals.decline(b.id);
        const list = async (filter: Parameters<Store['proposals']['list']>[0], page = PAGE) => (await store.proposals.list(filter, page)).proposals.map((p) => p.id);
        expect(await list({ status: 'all' })).toEqual([c.id, b.id, a.id]);
        expect(await list({ status: 'pending' })).toEqual([c.id, a.id]);
        expect(await list({ status: 'declined' })).toEqual([b.id]);
        expect(await list({ status: 'applied' })).toEqual([]);
        expect(await list({ status: 'all', meetingId: 'mtg_alpha' })).toEqual([c.id, a.id]);
        expect(await list({ status: 'all' }, { offset: 1, limit: 1 })).toEqual([b.id]);
        expect((await store.proposals.list({ status: 'all' }, { offset: 1, limit: 1 })).pagination).toEqual({ offset: 1, limit: 1, returned: 1, total: 3, next_offset: 2 });
        await expectError(store.proposals.list({ status: 'all', meetingId: 'mtg_missing' }, PAGE), NotFoundError, 'mtg_missing');
      });

      it('seed stores a fixed proposal once', async () => {
        const store = await loaded();
        const seed = {
          id: 'prp_seeded',
          meetingId: 'mtg_alpha',
          kind: 'memo' as const,
          targetId: null,
          content: 'Seeded note',
          baseContent: 'Budget note: spend less on travel.',
          proposedBy: 'demo',
          createdAt: '2026-03-03T10:00:00.000Z',
        };
        await store.proposals.seed(seed);
        await store.proposals.seed({ ...seed, content: 'Other content' });
        expect(await store.proposals.get('prp_seeded')).toMatchObject({
          id: 'prp_seeded',
          kind: 'memo',
          content: 'Seeded note',
          status: 'pending',
          stale: false,
          proposed_by: 'demo',
          created_at: '2026-03-03T10:00:00.000Z',
        });
        expect((await store.proposals.list({ status: 'all' }, PAGE)).pagination.total).toBe(1);
      });
    });

    describe('imports', () => {
      it('enqueue needs a live worker', async () => {
        const store = await fresh();
        const file = writeWav(join(recordings(), 'a.wav'));
        const e = await expectError(store.imports.enqueue({ filePath: file }), UnavailableError);
        expect(e.kind).toBe('unavailable');
        expect((await store.meetings.list({}, PAGE)).meetings).toEqual([]);
      });

      it('enqueue makes a meeting and a queued job, read back by get, forMeeting, list and the meeting', async () => {
        const store = await fresh();
        await store.workers.register({ id: 'wrk_conf', concurrency: 1, version: 'test' });
        await store.folders.ensure('Calls');
        const file = writeWav(join(recordings(), 'weekly call.wav'));
        const job = await store.imports.enqueue({ filePath: file, title: '  Weekly call ', folderPath: 'Calls', startedAt: '2026-04-01T08:00:00.000Z' });
        expect(job).toMatchObject({
          processing_status: 'queued',
          summary_status: 'pending',
          error: null,
          file_format: 'wav',
          title: 'Weekly call',
          request_key: null,
          audio_duration_ms: null,
          progress: null,
          started_at: null,
          finished_at: null,
        });
        expect(job.job_id).toMatch(/^job_/);
        expect(job.meeting_id).toMatch(/^mtg_/);
        expect(job).not.toHaveProperty('duplicate_of');
        expect(await store.imports.get(job.job_id)).toEqual(job);
        expect(await store.imports.forMeeting(job.meeting_id)).toEqual(job);
        expect(await store.imports.list({ status: 'queued' }, PAGE)).toEqual({ imports: [job], pagination: { offset: 0, limit: 50, returned: 1, total: 1 } });
        const meeting = await store.meetings.get(job.meeting_id);
        expect(meeting).toMatchObject({ title: 'Weekly call', folder_path: 'Calls', started_at: '2026-04-01T08:00:00.000Z', processing_status: 'queued', recording_import: job });
        expect((await store.meetings.list({}, PAGE)).meetings[0]).toMatchObject({ id: job.meeting_id, processing_status: 'queued' });
        expect(await store.meetings.counts()).toMatchObject({ meetings: 1, active_imports: 1 });
        expect(await store.jobs.hasQueued()).toBe(true);
      });

      it('the title defaults to the file name; an unknown folder, a bad path or an empty file is refused', async () => {
        const { store, dir } = await queued(0);
        const job = await store.imports.enqueue({ filePath: writeWav(join(dir, 'Design review.wav')) });
        expect(job.title).toBe('Design review');
        await expectError(store.imports.enqueue({ filePath: writeWav(join(dir, 'b.wav')), folderPath: 'Nowhere' }), NotFoundError, 'Nowhere');
        await expectError(store.imports.enqueue({ filePath: 'relative/c.wav' }), InvalidInputError);
        await expectError(store.imports.enqueue({ filePath: join(dir, 'missing.wav') }), InvalidInputError);
        writeFileSync(join(dir, 'empty.wav'), '');
        await expectError(store.imports.enqueue({ filePath: join(dir, 'empty.wav') }), InvalidInputError);
        await expectError(store.imports.enqueue({ filePath: writeWav(join(dir, 'd.wav')), title: '   ' }), InvalidInputError);
        await expectError(store.imports.enqueue({ filePath: writeWav(join(dir, 'e.wav')), requestKey: '' }), InvalidInputError);
        expect((await store.imports.list({ status: 'all' }, PAGE)).pagination.total).toBe(1);
      });

      it('request_key: the same key and file give back the original job; another file conflicts', async () => {
        const { store, dir } = await queued(0);
        const file = writeWav(join(dir, 'a.wav'));
        const first = await store.imports.enqueue({ filePath: file, requestKey: 'key-1' });
        expect(first.request_key).toBe('key-1');
        expect(await store.imports.enqueue({ filePath: file, requestKey: 'key-1', title: 'ignored' })).toEqual(first);
        await expectError(store.imports.enqueue({ filePath: writeWav(join(dir, 'b.wav')), requestKey: 'key-1' }), ConflictError, 'key-1');
        expect((await store.imports.list({ status: 'all' }, PAGE)).pagination.total).toBe(1);
        // The original comes back even after its file is gone.
        rmSync(file);
        expect((await store.imports.enqueue({ filePath: file, requestKey: 'key-1' })).job_id).toBe(first.job_id);
      });

      it('duplicate content: reported by default, refused or allowed on request, found by hash', async () => {
        const { store, dir } = await queued(0);
        const file = writeWav(join(dir, 'a.wav'));
        const copy = join(dir, 'copy.wav');
        copyFileSync(file, copy);
        const first = await store.imports.enqueue({ filePath: file });
        const reported = await store.imports.enqueue({ filePath: copy });
        expect(reported.job_id).not.toBe(first.job_id);
        expect(reported.duplicate_of).toEqual({ job_id: first.job_id, meeting_id: first.meeting_id, title: first.title, processing_status: 'queued' });
        const refused = await expectError(store.imports.enqueue({ filePath: copy, duplicates: 'refuse' }), ConflictError, first.job_id);
        expect(refused.kind).toBe('conflict');
        const allowed = await store.imports.enqueue({ filePath: copy, duplicates: 'allow' });
        expect(allowed).not.toHaveProperty('duplicate_of');
        const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
        expect(await store.imports.findByContent(sha)).toEqual({ jobId: first.job_id, meetingId: first.meeting_id, title: first.title, status: 'queued' });
        expect(await store.imports.findByContent('0'.repeat(64))).toBeNull();
        // A caller that hashed the file already passes the hash: trusted, not read again.
        const other = writeWav(join(dir, 'other.wav'));
        const hinted = await store.imports.enqueue({ filePath: other, contentSha256: sha, duplicates: 'report' });
        expect(hinted.duplicate_of?.job_id).toBe(first.job_id);
      });

      it('a failed import does not count as a duplicate, except for includeFailed', async () => {
        const { store, dir, lease } = await queued(0);
        const file = writeWav(join(dir, 'a.wav'));
        const first = await store.imports.enqueue({ filePath: file });
        const claimed = (await store.jobs.claimNext('wrk_conf', LEASE_MS))!;
        expect(await store.jobs.fail(lease(claimed.id), 'could not decode')).toBe(true);
        const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
        expect(await store.imports.findByContent(sha)).toBeNull();
        expect(await store.imports.findByContent(sha, { includeFailed: true })).toEqual({ jobId: first.job_id, meetingId: first.meeting_id, title: first.title, status: 'failed' });
        const again = await store.imports.enqueue({ filePath: file, duplicates: 'refuse' });
        expect(again.processing_status).toBe('queued');
      });

      it('hasFile, hasUnder and statuses', async () => {
        const { store, dir, jobs } = await queued(2);
        const stored = jobs[0]!.file_path;
        const stat = statSync(stored);
        expect(await store.imports.hasFile(stored, stat.size, Math.trunc(stat.mtimeMs))).toBe(true);
        expect(await store.imports.hasFile(stored, stat.size + 1, Math.trunc(stat.mtimeMs))).toBe(false);
        expect(await store.imports.hasFile(join(dir, 'nope.wav'), stat.size, Math.trunc(stat.mtimeMs))).toBe(false);
        const folder = stored.slice(0, stored.lastIndexOf('/'));
        expect(await store.imports.hasUnder(folder)).toBe(true);
        expect(await store.imports.hasUnder(`${folder}/`)).toBe(true);
        expect(await store.imports.hasUnder(folder.slice(0, -1))).toBe(false); // a prefix of the name is not the folder
        mkdirSync(join(dir, 'sub'));
        expect(await store.imports.hasUnder(join(folder, 'sub'))).toBe(false);
        const statuses = await store.imports.statuses([jobs[0]!.job_id, 'job_unknown', jobs[1]!.job_id]);
        expect(statuses).toEqual(
          new Map([
            [jobs[0]!.job_id, 'queued'],
            [jobs[1]!.job_id, 'queued'],
          ]),
        );
        expect(await store.imports.forMeeting('mtg_unknown')).toBeNull();
      });

      it('list: newest first, by status (active = not done nor failed), paged', async () => {
        const { store, jobs, lease } = await queued(3);
        const claimed = (await store.jobs.claimNext('wrk_conf', LEASE_MS))!;
        expect(claimed.id).toBe(jobs[0]!.job_id);
        const second = (await store.jobs.claimNext('wrk_conf', LEASE_MS))!;
        await store.jobs.fail(lease(second.id), 'broken');
        const list = async (status: Parameters<Store['imports']['list']>[0]['status'], page = PAGE) => (await store.imports.list({ status }, page)).imports.map((j) => j.job_id);
        const [a, b, c] = jobs.map((j) => j.job_id);
        expect(await list('all')).toEqual([c, b, a]);
        expect(await list('active')).toEqual([c, a]);
        expect(await list('queued')).toEqual([c]);
        expect(await list('importing')).toEqual([a]);
        expect(await list('failed')).toEqual([b]);
        expect(await list('done')).toEqual([]);
        expect((await store.imports.list({ status: 'all' }, { offset: 0, limit: 2 })).pagination).toEqual({ offset: 0, limit: 2, returned: 2, total: 3, next_offset: 2 });
        expect(await store.imports.statuses([a!, b!])).toEqual(
          new Map([
            [a!, 'importing'],
            [b!, 'failed'],
          ]),
        );
      });
    });

    describe('jobs', () => {
      it('claims take the oldest queued job, once', async () => {
        const { store, jobs } = await queued(3);
        const claims = [await store.jobs.claimNext('wrk_a', LEASE_MS), await store.jobs.claimNext('wrk_b', LEASE_MS), await store.jobs.claimNext('wrk_a', LEASE_MS)];
        expect(claims.map((c) => c?.id)).toEqual(jobs.map((j) => j.job_id));
        expect(await store.jobs.claimNext('wrk_b', LEASE_MS)).toBeNull();
        expect(await store.jobs.hasQueued()).toBe(false);
        const stat = statSync(jobs[0]!.file_path);
        expect(claims[0]).toEqual({
          id: jobs[0]!.job_id,
          meetingId: jobs[0]!.meeting_id,
          filePath: jobs[0]!.file_path,
          fileSize: stat.size,
          fileMtimeMs: Math.trunc(stat.mtimeMs),
          fileFormat: 'wav',
          extractAudio: false,
          createdAt: jobs[0]!.created_at,
        });
        const read = await store.imports.get(jobs[0]!.job_id);
        expect(read.processing_status).toBe('importing');
        expect(read.started_at).not.toBeNull();
      });

      it('concurrent claims never hand out the same job twice', async () => {
        const { store, jobs } = await queued(4);
        const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => store.jobs.claimNext(`wrk_${i}`, LEASE_MS)));
        const got = claims.filter((c) => c !== null).map((c) => c.id);
        expect(got.sort()).toEqual(jobs.map((j) => j.job_id).sort());
      });

      it('a job through every stage: audio facts, chunked words, transcription, completion with a summary', async () => {
        const { store, jobs, lease } = await queued(1);
        const job = (await store.jobs.claimNext('wrk_conf', LEASE_MS))!;
        expect(await store.jobs.renewLease(lease(job.id))).toBe(true);
        expect(await store.jobs.renewLease({ ...lease(job.id), workerId: 'wrk_other' })).toBe(false);
        await store.jobs.recordAudioFacts(lease(job.id), job.meetingId, { durationMs: 6_375, endedAtMs: Date.parse('2026-11-30T10:00:00.000Z') });
        let read = await store.imports.get(job.id);
        expect(read).toMatchObject({ processing_status: 'transcribing', audio_duration_ms: 6_375 });
        const meeting = await store.meetings.get(job.meetingId);
        expect([meeting.started_at, meeting.ended_at]).toEqual(['2026-11-30T09:59:53.625Z', '2026-11-30T10:00:00.000Z']);

        await store.jobs.startChunkProgress(lease(job.id), 3);
        expect((await store.imports.get(job.id)).progress).toEqual({ chunks_done: 0, chunks_total: 3 });
        const n1 = await store.jobs.appendWords(lease(job.id), job.meetingId, { words: [word('hello', 0, 'Ada'), word('big world', 400, 'Ada')], language: 'en', progress: { chunksDone: 1, chunksTotal: 3 } });
        expect(n1).toBe(3); // a "word" holding a space is stored as two words
        expect((await store.imports.get(job.id)).progress).toEqual({ chunks_done: 1, chunks_total: 3 });
        expect(await store.transcripts.wordCount(job.meetingId)).toBe(3);
        // Words are searchable as soon as they are stored.
        expect((await store.search.transcripts({ query: 'world' }, PAGE)).hits).toEqual([expect.objectContaining({ meeting_id: job.meetingId, offset: 2, speaker: 'Ada' })]);
        const n2 = await store.jobs.finishTranscription(lease(job.id), job.meetingId, { words: [word('bye', 2_000, 'Bob')], language: 'en', timing: 'mixed', progress: { chunksDone: 3, chunksTotal: 3 } }, ['Ada', 'Bob']);
        expect(n2).toBe(4);
        read = await store.imports.get(job.id);
        expect(read).toMatchObject({ processing_status: 'summarizing', progress: { chunks_done: 3, chunks_total: 3 } });
        const page = await store.transcripts.page(job.meetingId, PAGE);
        expect(page.words.map((w) => [w.text, w.start_ms, w.speaker])).toEqual([
          ['hello', 0, 'Ada'],
          ['big', 400, 'Ada'],
          ['world', 550, 'Ada'],
          ['bye', 2_000, 'Bob'],
        ]);
        expect(page.timing).toBe('mixed');
        expect((await store.meetings.get(job.meetingId)).speakers).toEqual(['Ada', 'Bob']);

        await store.jobs.complete(lease(job.id), job.meetingId, {
          summaryStatus: 'done',
          summary: { markdown: '## Summary\n\nThey agreed quickly.', actionItems: [{ text: 'Say bye', assignee: 'Bob', dueDate: '2026-12-01' }] },
        });
        read = await store.imports.get(job.id);
        expect(read).toMatchObject({ processing_status: 'done', summary_status: 'done', error: null });
        expect(read.finished_at).not.toBeNull();
        const done = await store.meetings.get(job.meetingId);
        expect(done.summaries).toEqual([expect.objectContaining({ title: 'Summary', content: '## Summary\n\nThey agreed quickly.' })]);
        expect((await store.search.transcripts({ query: 'agreed quickly' }, PAGE)).hits).toEqual([expect.objectContaining({ meeting_id: job.meetingId, kind: 'summary', summary_id: done.summaries[0]!.id })]);
        expect(done.action_items).toEqual([expect.objectContaining({ text: 'Say bye', assignee: 'Bob', due_date: '2026-12-01', done: false })]);
        expect(done.processing_status).toBe('done');
        expect(await store.imports.list({ status: 'active' }, PAGE)).toMatchObject({ imports: [] });
        expect(jobs[0]!.job_id).toBe(job.id);
        // A finished job is no longer anyone's to write.
        expect(await store.jobs.renewLease(lease(job.id))).toBe(false);
        expect(await store.jobs.fail(lease(job.id), 'late')).toBe(false);
      });

      it('a transcript file goes from importing straight to summarizing; a summary can be skipped with a note', async () => {
        const { store, lease } = await queued(1);
        const job = (await store.jobs.claimNext('wrk_conf', LEASE_MS))!;
        const count = await store.jobs.storeFileTranscript(lease(job.id), job.meetingId, { durationMs: 2_000, endedAtMs: Date.parse('2026-11-30T10:00:00.000Z') }, { words: [word('from', 0, 'Eve'), word('file', 400, 'Eve')], language: 'fr' }, ['Eve']);
        expect(count).toBe(2);
        expect(await store.imports.get(job.id)).toMatchObject({ processing_status: 'summarizing', audio_duration_ms: 2_000 });
        expect((await store.meetings.get(job.meetingId)).transcript).toMatchObject({ language: 'fr', word_count: 2 });
        await store.jobs.complete(lease(job.id), job.meetingId, { summaryStatus: 'skipped_too_short', note: 'Too short to summarise.' });
        expect(await store.imports.get(job.id)).toMatchObject({ processing_status: 'done', summary_status: 'skipped_too_short', error: 'Too short to summarise.' });
        expect((await store.meetings.get(job.meetingId)).summaries).toEqual([]);
      });

      it('a write from the wrong stage or another worker is refused as a lost lease', async () => {
        const { store, lease } = await queued(1);
        const job = (await store.jobs.claimNext('wrk_conf', LEASE_MS))!;
        const lost = await rejection(store.jobs.appendWords(lease(job.id), job.meetingId, { words: [word('early')], language: null })); // still importing
        expect(lost.name).toBe('LeaseLostError');
        expect(lost).not.toBeInstanceOf(SyntheoError);
        const other = await rejection(store.jobs.recordAudioFacts({ ...lease(job.id), workerId: 'wrk_thief' }, job.meetingId, { durationMs: 1, endedAtMs: Date.now() }));
        expect(other.name).toBe('LeaseLostError');
        expect(await store.imports.get(job.id)).toMatchObject({ processing_status: 'importing', audio_duration_ms: null });
        expect(await store.transcripts.wordCount(job.meetingId)).toBe(0);
      });

      it('fail and interrupt write the failure down once; the meeting stays', async () => {
        const { store, lease } = await queued(2);
        const a = (await store.jobs.claimNext('wrk_conf', LEASE_MS))!;
        const b = (await store.jobs.claimNext('wrk_conf', LEASE_MS))!;
        expect(await store.jobs.fail(lease(a.id), 'The file could not be decoded.')).toBe(true);
        expect(await store.jobs.fail(lease(a.id), 'again')).toBe(false);
        expect(await store.imports.get(a.id)).toMatchObject({ processing_status: 'failed', summary_status: 'failed', error: 'The file could not be decoded.' });
        await store.jobs.recordAudioFacts(lease(b.id), b.meetingId, { durationMs: 1_000, endedAtMs: Date.now() });
        expect(await store.jobs.interrupt(lease(b.id), 'transcribing', { signal: 'SIGTERM', graceMs: 5_000 })).toBe(true);
        expect(await store.jobs.interrupt(lease(b.id), 'transcribing', { signal: 'SIGTERM', graceMs: 5_000 })).toBe(false);
        const interrupted = await store.imports.get(b.id);
        expect(interrupted).toMatchObject({ processing_status: 'failed', summary_status: 'failed' });
        expect(interrupted.error).toContain('SIGTERM');
        expect(interrupted.error).toContain('5 s');
        expect(interrupted.finished_at).not.toBeNull();
        expect((await store.meetings.get(b.meetingId)).processing_status).toBe('failed');
      });

      it('an expired lease reads as interrupted at once; nothing the worker writes gets through; the sweep writes it down', async () => {
        const { store, lease } = await queued(1);
        const shortLease = 200;
        const job = (await store.jobs.claimNext('wrk_conf', shortLease))!;
        await store.jobs.recordAudioFacts(lease(job.id, shortLease), job.meetingId, { durationMs: 1_000, endedAtMs: Date.now() });
        await store.jobs.appendWords(lease(job.id, shortLease), job.meetingId, { words: [word('kept')], language: 'en' });
        // Wait (bounded) until the lease has run out, as readers see it.
        const deadline = Date.now() + EXPIRY_WAIT_MS;
        let derived = await store.imports.get(job.id);
        while (derived.processing_status !== 'failed' && Date.now() < deadline) {
          await sleep(50);
          derived = await store.imports.get(job.id);
        }
        expect(derived).toMatchObject({ processing_status: 'failed', summary_status: 'failed' });
        expect(derived.error).toMatch(/^Interrupted: .*transcribing/);
        expect(derived.finished_at).not.toBeNull();
        expect((await store.meetings.list({}, PAGE)).meetings[0]!.processing_status).toBe('failed');
        expect((await store.imports.list({ status: 'all' }, PAGE)).imports).toEqual([derived]);
        // Filters, counts and statuses agree with what the job reads as.
        expect(await store.imports.list({ status: 'failed' }, PAGE)).toEqual({ imports: [derived], pagination: { offset: 0, limit: 50, returned: 1, total: 1 } });
        expect(await store.imports.list({ status: 'active' }, PAGE)).toEqual({ imports: [], pagination: { offset: 0, limit: 50, returned: 0, total: 0 } });
        expect((await store.imports.list({ status: 'transcribing' }, PAGE)).imports).toEqual([]);
        expect((await store.meetings.counts()).active_imports).toBe(0);
        expect(await store.imports.statuses([job.id])).toEqual(new Map([[job.id, 'failed']]));

        expect(await store.jobs.renewLease(lease(job.id, shortLease))).toBe(false);
        expect((await rejection(store.jobs.appendWords(lease(job.id), job.meetingId, { words: [word('lost')], language: 'en' }))).name).toBe('LeaseLostError');
        expect((await rejection(store.jobs.finishTranscription(lease(job.id), job.meetingId, { words: [], language: 'en' }, []))).name).toBe('LeaseLostError');
        expect(await store.jobs.fail(lease(job.id), 'too late')).toBe(false);

        expect(await store.jobs.sweepExpiredLeases()).toEqual([job.id]);
        expect(await store.jobs.sweepExpiredLeases()).toEqual([]);
        const { updated_at: _a, ...swept } = await store.imports.get(job.id);
        const { updated_at: _b, ...before } = derived;
        expect(swept).toEqual(before);
        expect(await store.imports.list({ status: 'active' }, PAGE)).toMatchObject({ imports: [] });
        expect((await store.transcripts.allWords(job.meetingId))?.map((w) => w[1])).toEqual(['kept']);
      });

      it('the sweep leaves live leases and queued jobs alone', async () => {
        const { store } = await queued(2);
        const job = (await store.jobs.claimNext('wrk_conf', LEASE_MS))!;
        expect(await store.jobs.sweepExpiredLeases()).toEqual([]);
        expect((await store.imports.get(job.id)).processing_status).toBe('importing');
        expect(await store.jobs.hasQueued()).toBe(true);
      });
    });

    describe('races: calls in flight at once', () => {
      it('two enqueues with the same request_key make one job', async () => {
        const { store, dir } = await queued(0);
        const file = writeWav(join(dir, 'a.wav'));
        const [x, y] = await Promise.all([store.imports.enqueue({ filePath: file, requestKey: 'same' }), store.imports.enqueue({ filePath: file, requestKey: 'same' })]);
        expect(x.job_id).toBe(y.job_id);
        expect((await store.imports.list({ status: 'all' }, PAGE)).pagination.total).toBe(1);
        expect((await store.meetings.list({}, PAGE)).pagination.total).toBe(1);
      });

      it('two refusing enqueues of the same content make one job and one conflict', async () => {
        const { store, dir } = await queued(0);
        const file = writeWav(join(dir, 'a.wav'));
        const copy = join(dir, 'b.wav');
        copyFileSync(file, copy);
        const results = await Promise.allSettled([store.imports.enqueue({ filePath: file, duplicates: 'refuse' }), store.imports.enqueue({ filePath: copy, duplicates: 'refuse' })]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const refused = results.find((r) => r.status === 'rejected');
        expect(refused?.reason).toBeInstanceOf(ConflictError);
        expect((await store.meetings.list({}, PAGE)).pagination.total).toBe(1);
      });

      it('ensuring one folder from several callers makes it once', async () => {
        const store = await fresh();
        const refs = await Promise.all(Array.from({ length: 5 }, () => store.folders.ensure('Shared/Deep/Folder')));
        expect(new Set(refs.map((r) => r.id)).size).toBe(1);
        expect(await store.folders.paths()).toEqual(['Shared', 'Shared/Deep', 'Shared/Deep/Folder']);
      });

      it('a proposal applied twice at once is applied once', async () => {
        const store = await loaded();
        const p = await store.proposals.proposeSummaryEdit({ meetingId: 'mtg_delta', content: 'Only once' });
        const results = await Promise.allSettled([store.proposals.apply(p.id, { force: false }), store.proposals.apply(p.id, { force: false })]);
        expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
        expect(results.find((r) => r.status === 'rejected')?.reason).toBeInstanceOf(ConflictError);
        expect((await store.meetings.get('mtg_delta')).summaries.map((s) => s.content)).toEqual(['Only once']);
      });
    });

    describe('workers', () => {
      it('register, heartbeat, latest, isAlive, markStopped', async () => {
        const store = await fresh();
        expect(await store.workers.isAlive()).toBe(false);
        await store.workers.register({ id: 'wrk_one', concurrency: 2, version: '1.2.3' });
        const first = (await store.workers.latest())!;
        expect(first).toMatchObject({ id: 'wrk_one', version: '1.2.3', pid: process.pid, alive: true });
        expect(typeof first.hostname).toBe('string');
        expect(first.heartbeat_age_ms).toBeGreaterThanOrEqual(0);
        expect(await store.workers.isAlive()).toBe(true);
        await nextMillisecond();
        await store.workers.heartbeat('wrk_one');
        const beat = (await store.workers.latest())!;
        expect(beat.heartbeat_at > first.heartbeat_at).toBe(true);
        await nextMillisecond();
        await store.workers.register({ id: 'wrk_two', concurrency: 1, version: '1.2.4' });
        expect((await store.workers.latest())!.id).toBe('wrk_two');
        await store.workers.markStopped('wrk_two');
        expect((await store.workers.latest())!.id).toBe('wrk_one');
        await store.workers.markStopped('wrk_one');
        expect(await store.workers.latest()).toBeNull();
        expect(await store.workers.isAlive()).toBe(false);
        await store.workers.heartbeat('wrk_unknown'); // nothing to beat: no error
      });
    });

    describe('settings', () => {
      it('read, write (upsert), delete', async () => {
        const store = await fresh();
        await store.settings.write('transcription.url', 'http://127.0.0.1:8080');
        await store.settings.write('llm.model', 'small');
        await store.settings.write('llm.model', 'large');
        expect(await store.settings.read()).toEqual({ 'llm.model': 'large', 'transcription.url': 'http://127.0.0.1:8080' });
        expect(Object.keys(await store.settings.read())).toEqual(['llm.model', 'transcription.url']);
        expect(await store.settings.delete('llm.model')).toBe(true);
        expect(await store.settings.delete('llm.model')).toBe(false);
        expect(await store.settings.read()).toEqual({ 'transcription.url': 'http://127.0.0.1:8080' });
      });
    });

    describe('admin', () => {
      it('load then export gives back the same records; loading them again changes nothing', async () => {
        const store = await fresh();
        const records = dataset();
        const result = await store.admin.load(records);
        expect(result).toEqual({
          meetings: records.map((r) => ({ id: r.id, title: r.title, words: r.transcripts[0]?.word_count ?? 0 })),
          skipped: [],
          failed: [],
        });
        for (const r of records) expect(await store.meetings.export(r.id)).toEqual(r);
        const again = await store.admin.load({ meetings: records });
        expect(again.meetings).toEqual([]);
        expect(again.skipped.map((s) => s.id)).toEqual(records.map((r) => r.id));
        expect(again.failed).toEqual([]);
      });

      it('load refuses a participant name or e-mail longer than 500 characters, says which, and restores the others', async () => {
        const store = await fresh();
        // 500 characters of 4 bytes each, that do not compress: the longest a PostgreSQL index entry takes with room.
        const widest = Array.from({ length: 500 }, (_, i) => String.fromCodePoint(0x1f600 + (i % 80))).join('');
        const fits = record({ id: 'mtg_wide', title: 'Wide', started_at: '2026-05-01T10:00:00.000Z', participants: [{ name: widest, email: `${'x'.repeat(480)}@example.test` }] });
        const long = Array.from({ length: 501 }, (_, i) => String.fromCharCode(97 + ((i * 7) % 26))).join('');
        const tooLong = record({ id: 'mtg_long', title: 'Long', started_at: '2026-05-02T10:00:00.000Z', participants: [{ name: 'Ada' }, { name: 'Bob', email: long }] });
        // 1,200 CJK characters drawn at random (3,600 bytes): PostgreSQL's index refused such a name, and the load stopped.
        let seed = 7;
        const cjk = Array.from({ length: 1200 }, () => String.fromCodePoint(0x4e00 + ((seed = (seed * 48271) % 2147483647) % 20000))).join('');
        const huge = record({ id: 'mtg_huge', title: 'Huge', started_at: '2026-05-03T10:00:00.000Z', participants: [{ name: cjk }] });
        const result = await store.admin.load([tooLong, huge, fits]);
        expect(result.meetings.map((m) => m.id)).toEqual(['mtg_wide']);
        expect(result.failed).toEqual([
          { record: 1, id: 'mtg_long', error: `Meeting mtg_long (record 1): participants[1].email: at most 500 characters (got 501: "${long.slice(0, 40)}…").` },
          { record: 2, id: 'mtg_huge', error: `Meeting mtg_huge (record 2): participants[0].name: at most 500 characters (got 1200: "${cjk.slice(0, 40)}…").` },
        ]);
        expect((await store.meetings.export('mtg_wide'))?.participants).toEqual(fits.participants);
        expect((await store.meetings.list({ participant: widest.slice(0, 10) }, PAGE)).meetings.map((m) => m.id)).toEqual(['mtg_wide']);
        await expect(store.meetings.export('mtg_long')).rejects.toThrow('Meeting "mtg_long" does not exist');
      });

      it('a long transcript round-trips through 100-word segments', async () => {
        const store = await fresh();
        const words = timed([
          ['Ada', Array.from({ length: 230 }, (_, i) => `a${i}`).join(' ')],
          ['Bob', 'short answer'],
        ]);
        const r = record({ id: 'mtg_long', title: 'Long', started_at: '2026-05-01T10:00:00.000Z', words, timing: 'mixed' });
        expect(r.transcripts[0]!.segments.map((s) => s.times.length)).toEqual([100, 100, 30, 2]);
        await store.admin.load([r]);
        expect(await store.meetings.export('mtg_long')).toEqual(r);
        expect(await store.transcripts.wordCount('mtg_long')).toBe(232);
      });

      it('load replaces a changed meeting whole, and accepts one record or an export envelope', async () => {
        const store = await loaded();
        const [alpha] = dataset();
        const changed: MeetingExport = {
          ...alpha!,
          title: 'Budget review Q3 (final)',
          folder_path: 'Archive',
          participants: [{ name: 'Ada Lovelace', email: null, role: null }],
          action_items: [],
          transcripts: [],
        };
        const result = await store.admin.load(changed);
        expect(result.meetings).toEqual([{ id: 'mtg_alpha', title: 'Budget review Q3 (final)', words: 0 }]);
        expect(await store.meetings.export('mtg_alpha')).toEqual(changed);
        expect(ids((await store.meetings.list({ participant: 'grace' }, PAGE)).meetings)).toEqual(['mtg_beta']);
        expect(ids((await store.meetings.list({ query: 'final' }, PAGE)).meetings)).toEqual(['mtg_alpha']);
        expect((await store.search.transcripts({ query: 'budget review' }, PAGE)).hits).toEqual([]);
        const envelope = { schema_version: 1, command: 'meetings export', data: [alpha] };
        expect((await store.admin.load(envelope)).meetings.map((m) => m.id)).toEqual(['mtg_alpha']);
        expect(await store.meetings.export('mtg_alpha')).toEqual(alpha);
      });

      it('load reports bad records and restores the others', async () => {
        const store = await loaded();
        const ok = record({ id: 'mtg_new', title: 'New one', started_at: '2026-06-01T10:00:00.000Z', summaries: [{ id: 'sum_new', content: 'fine' }] });
        const badId = record({ id: 'meeting 1', title: 'Bad id', started_at: '2026-06-01T10:00:00.000Z' });
        const clash = record({ id: 'mtg_clash', title: 'Clash', started_at: '2026-06-02T10:00:00.000Z', summaries: [{ id: 'sum_alpha', content: 'taken' }] });
        const twice = record({ id: 'mtg_new', title: 'Twice', started_at: '2026-06-03T10:00:00.000Z' });
        const broken = { ...record({ id: 'mtg_broken', title: 'Broken', started_at: '2026-06-04T10:00:00.000Z', words: timed([['Ada', 'one two']]) }) };
        broken.transcripts[0]!.segments[0]!.times.pop();
        const result = await store.admin.load([ok, badId, clash, twice, broken]);
        expect(result.meetings).toEqual([{ id: 'mtg_new', title: 'New one', words: 0 }]);
        expect(result.failed.map((f) => [f.record, f.id])).toEqual([
          [2, 'meeting 1'],
          [3, 'mtg_clash'],
          [4, 'mtg_new'],
          [5, 'mtg_broken'],
        ]);
        expect(result.failed[1]!.error).toContain('mtg_alpha');
        // Each failed meeting left no trace; the clashing summary still belongs to its meeting.
        for (const id of ['mtg_clash', 'mtg_broken']) expect(await store.meetings.title(id)).toBeNull();
        expect(await store.meetings.export('mtg_new')).toEqual(ok);
        expect((await store.meetings.get('mtg_alpha')).summaries.map((s) => s.id)).toEqual(['sum_alpha']);
        await expectError(store.admin.load(42), InvalidInputError);
        await expectError(store.admin.load({ schema_version: 1, command: 'doctor', error: { message: 'x' } }), InvalidInputError);
      });

      it('load takes a check for each item and a source for content of unknown origin', async () => {
        const store = await fresh();
        const [alpha, beta] = dataset();
        const odd = { ...beta!, transcripts: beta!.transcripts.map((t) => ({ ...t, source: 'elsewhere' })) };
        const result = await store.admin.load([alpha, odd, { not: 'a record' }], {
          source: 'demo',
          check: (item, n) => (typeof item === 'object' && item !== null && 'format' in item ? { ok: true, record: item as MeetingExport } : { ok: false, error: `Record ${n}: not an export.` }),
        });
        expect(result.meetings.map((m) => m.id)).toEqual(['mtg_alpha', 'mtg_beta']);
        expect(result.failed).toEqual([{ record: 3, id: null, error: 'Record 3: not an export.' }]);
        expect((await store.meetings.export('mtg_beta')).transcripts[0]!.source).toBe('demo');
        expect((await store.meetings.export('mtg_alpha')).transcripts[0]!.source).toBe('load'); // a known source is kept
      });

      it('schema is current; integrity finds nothing wrong; repairSearch rebuilds the same search', async () => {
        const store = await loaded();
        const schema = await store.admin.schema();
        expect(schema.known).toBeGreaterThan(0);
        expect(schema.applied).toBe(schema.known);
        for (const full of [false, true]) {
          const report = await store.admin.integrity({ full });
          expect(report).toMatchObject({ problems: [], missing: [], search: [], searchOnly: true });
        }
        const before = await store.search.transcripts({ query: 'budget review' }, PAGE);
        const told: [string, number, number][] = [];
        const repair = await store.admin.repairSearch((step, done, total) => told.push([step, done, total]));
        expect(repair).toMatchObject({ meetings: 4, participants: 5, recreated: [] });
        // Each step told at its start and its end, going forward: the transcripts one by one (alpha's and beta's).
        expect([...new Set(told.map(([step]) => step))].sort()).toEqual(['counts', 'meetings', 'transcripts']);
        for (const step of ['counts', 'meetings', 'transcripts']) {
          const calls = told.filter(([s]) => s === step);
          expect(calls.at(0)![1]).toBe(0);
          expect(calls.at(-1)![1]).toBe(calls.at(-1)![2]);
          expect(calls.every(([, done, total], i) => total === calls[0]![2] && done <= total && (i === 0 || done >= calls[i - 1]![1]))).toBe(true);
        }
        expect(told.filter(([s]) => s === 'transcripts').map(([, done, total]) => [done, total])).toEqual([[0, 2], [1, 2], [2, 2]]);
        expect(told.find(([s]) => s === 'meetings')![2]).toBe(4);
        expect(repair.passages).toBeGreaterThan(0);
        const after = await store.search.transcripts({ query: 'budget review' }, PAGE);
        expect(after).toEqual(before);
        expect(ids((await store.meetings.list({ query: 'équipe' }, PAGE)).meetings)).toEqual(['mtg_gamma']);
        expect(ids((await store.meetings.list({ participant: 'grace' }, PAGE)).meetings)).toEqual(['mtg_beta', 'mtg_alpha']);
        expect(await store.admin.maintain()).not.toBeUndefined();
      });
    });
  });
}

