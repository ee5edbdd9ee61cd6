// The domain's types are inferred from the Valibot schemas of src/db/model/shapes.ts; this holds the
// schemas to what the SQLite Store really returns, key for key: every output parses with the schema
// made exact (unknown keys rejected at every depth, integers checked), so a field the query adds or
// drops without the schema (and so the type, the MCP output schema, the load check) fails here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ExportSchema,
  FolderSchema,
  MeetingDetailSchema,
  MeetingListItemSchema,
  PaginationSchema,
  ProposalDetailSchema,
  ProposalItemSchema,
  RecordingImportSchema,
  SearchHitSchema,
  SeriesRefSchema,
  TranscriptPageSchema,
} from '../../src/db/model/shapes.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { Store } from '../../src/db/store.js';
import { dataset } from '../store/records.js';
import { writeWav } from '../support/wav.js';

interface Node {
  type: string;
  pipe?: unknown[];
  entries?: Record<string, v.GenericSchema>;
  item?: v.GenericSchema;
  items?: v.GenericSchema[];
  options?: v.GenericSchema[];
  wrapped?: v.GenericSchema;
  default?: unknown;
}

/** The schema with objects and tuples strict (no unknown key or item) at every depth, and integers checked. */
function exact(schema: v.GenericSchema): v.GenericSchema {
  const s = schema as unknown as Node;
  if (s.pipe) {
    const [base, ...actions] = s.pipe as [v.GenericSchema, ...v.PipeAction<unknown, unknown, v.BaseIssue<unknown>>[]];
    const integer = actions.some((a) => (a as { type: string; metadata?: { type?: string } }).metadata?.type === 'integer');
    const extra = integer ? [v.check((n) => Number.isSafeInteger(n), 'an integer is expected') as v.PipeAction<unknown, unknown, v.BaseIssue<unknown>>] : [];
    return v.pipe(exact(base), ...actions, ...extra) as v.GenericSchema;
  }
  switch (s.type) {
    case 'object':
      return v.strictObject(Object.fromEntries(Object.entries(s.entries!).map(([k, e]) => [k, exact(e)])));
    case 'array':
      return v.array(exact(s.item!));
    case 'tuple':
      return v.strictTuple(s.items!.map(exact));
    case 'union':
      return v.union(s.options!.map(exact));
    case 'nullable':
      return v.nullable(exact(s.wrapped!));
    case 'optional':
      return v.optional(exact(s.wrapped!));
    default:
      return schema;
  }
}

/** The value, after checking it against the exact schema (the first issues, with their paths, when it does not fit). */
function fits(schema: v.GenericSchema, value: unknown): void {
  const result = v.safeParse(exact(schema), value);
  const issues = result.success ? [] : result.issues.slice(0, 5).map((i) => `${v.getDotPath(i) ?? '(root)'}: ${i.message}`);
  expect(issues).toEqual([]);
}

const PAGE = { limit: 50, offset: 0 };
let dir: string;
let store: Store;
let jobId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'syntheo-shapes-'));
  store = openSqliteStore(join(dir, 'syntheo.db'), { create: true });
  await store.admin.load(dataset());
  await store.workers.register({ id: 'wrk_shapes', concurrency: 1, version: 'test' });
  jobId = (await store.imports.enqueue({ filePath: writeWav(join(dir, 'call.wav')), title: 'A call', folderPath: 'Projets/Budget' })).job_id;
});

afterAll(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the domain's schemas are what the SQLite Store returns", () => {
  it('meetings.list: MeetingListItem, Pagination', async () => {
    const { meetings, pagination } = await store.meetings.list({}, PAGE);
    expect(meetings.length).toBeGreaterThan(4);
    for (const m of meetings) fits(MeetingListItemSchema, m);
    fits(PaginationSchema, pagination);
  });

  it('meetings.get: MeetingDetail (a loaded meeting with everything, one without, an imported one), never truncated', async () => {
    const imported = (await store.imports.get(jobId)).meeting_id;
    for (const id of ['mtg_alpha', 'mtg_gamma', imported]) {
      const m = await store.meetings.get(id);
      fits(MeetingDetailSchema, m);
      expect(m).not.toHaveProperty('truncated');
    }
    // The schema lets transcript.timing be absent (it is shared with old exports); the Store always says it.
    expect((await store.meetings.get('mtg_alpha')).transcript).toMatchObject({ timing: 'measured' });
    expect((await store.meetings.get('mtg_beta')).transcript).toMatchObject({ timing: 'estimated' });
    expect((await store.meetings.get(imported)).recording_import).toMatchObject({ job_id: jobId });
  });

  it('meetings.export: MeetingExport (the schema load checks files with)', async () => {
    for (const id of ['mtg_alpha', 'mtg_beta', 'mtg_gamma']) fits(ExportSchema, await store.meetings.export(id));
  });

  it('transcripts.page: words and turns; timing only when not measured', async () => {
    const words = await store.transcripts.page('mtg_alpha', PAGE, { wordTimings: true });
    fits(TranscriptPageSchema, words);
    expect(words).not.toHaveProperty('timing');
    const turns = await store.transcripts.page('mtg_beta', PAGE, { wordTimings: false });
    fits(TranscriptPageSchema, turns);
    expect(turns.timing).toBe('estimated');
    expect(turns.words.every((t) => Array.isArray(t))).toBe(true);
  });

  it('folders, series, search hits, imports', async () => {
    const { folders } = await store.folders.list({}, PAGE);
    expect(folders.length).toBeGreaterThan(2);
    for (const f of folders) fits(FolderSchema, f);
    fits(SeriesRefSchema, await store.series.get('ser_weekly'));
    const { hits } = await store.search.transcripts({ query: 'budget' }, PAGE);
    expect(hits.map((h) => h.kind)).toEqual(expect.arrayContaining(['transcript', 'note', 'summary']));
    for (const h of hits) fits(SearchHitSchema, h);
    fits(RecordingImportSchema, await store.imports.get(jobId));
    const { imports } = await store.imports.list({ status: 'all' }, PAGE);
    for (const i of imports) fits(RecordingImportSchema, i);
  });

  it('proposals: ProposalDetail (proposed, listed, declined) and ProposalItem; never truncated', async () => {
    const summary = await store.proposals.proposeSummaryEdit({ meetingId: 'mtg_alpha', content: '## Budget\n\n- Numbers on Friday\n', proposedBy: 'claude' });
    const memo = await store.proposals.proposeMemoEdit({ meetingId: 'mtg_beta', content: 'Launch in April.' });
    for (const p of [summary, memo, await store.proposals.get(summary.id), await store.proposals.decline(memo.id)]) {
      fits(ProposalDetailSchema, p);
      expect(p).not.toHaveProperty('truncated');
    }
    const { proposals } = await store.proposals.list({ status: 'all' }, PAGE);
    expect(proposals).toHaveLength(2);
    for (const p of proposals) fits(ProposalItemSchema, p);
  });
});
