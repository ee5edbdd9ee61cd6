// The Store's domain errors, worded by each surface: the assistant reads tool names and parameters
// (src/mcp/errors.ts), the person at the terminal reads commands and flags (src/cli/errors.ts). Real
// SQLite file, errors thrown by the SQLite Store; every text below is what a user sees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteStore } from '../src/db/sqlite/store.js';
import type { Store } from '../src/db/store.js';
import { SyntheoError } from '../src/errors.js';
import { mcpMessage } from '../src/mcp/errors.js';
import { cliMessage } from '../src/cli/errors.js';
import { openTestDb } from './support/db.js';
import { makeActionItem, makeMeeting, makeParticipant, makeSeries, makeSummary, makeTranscript } from './support/factories.js';
import { writeWav } from './support/wav.js';
import { run } from './cli/cli.js';

const mcp = mcpMessage;
const cli = cliMessage;

let db: ReturnType<typeof openTestDb>;
let store: Store;
const ids = {} as Record<'series' | 'inSeries' | 'other' | 'imported' | 'summary' | 'otherSummary' | 'proposal' | 'job' | 'folder' | 'action' | 'participant' | 'transcript', string>;

beforeAll(async () => {
  db = openTestDb();
  const s = db.sqlite;
  ids.series = makeSeries(s);
  ids.inSeries = makeMeeting(s, { title: 'Weekly sync 12', seriesId: ids.series, folderPath: 'Projets/Lancement' });
  ids.other = makeMeeting(s, { title: 'Budget review' });
  ids.imported = makeMeeting(s, { title: 'Imported call' });
  ids.summary = makeSummary(s, ids.inSeries);
  ids.otherSummary = makeSummary(s, ids.other, { content: 'Other summary' });
  makeTranscript(s, ids.inSeries, { texts: ['the', 'budget', 'review'] });
  makeParticipant(s, ids.inSeries, { name: 'Ada' });
  ids.action = makeActionItem(s, ids.inSeries);
  const one = (sql: string) => (s.prepare(sql).get() as { id: string }).id;
  ids.folder = one("SELECT id FROM folders WHERE path = 'Projets/Lancement'");
  ids.participant = one('SELECT id FROM participants');
  ids.transcript = one('SELECT id FROM transcripts');
  ids.job = 'job_wording00000000001';
  s.prepare(
    `INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, status, summary_status, created_at, updated_at)
     VALUES (?, ?, '/tmp/call.wav', 10, 0, 'wav', 'done', 'done', '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z')`,
  ).run(ids.job, ids.imported);
  store = openSqliteStore(db.path, { create: false });
  ids.proposal = (await store.proposals.proposeMemoEdit({ meetingId: ids.other, content: 'New note\n' })).id;
});

afterAll(async () => {
  await store?.close();
  db?.cleanup();
});

async function failure(p: Promise<unknown>): Promise<SyntheoError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof SyntheoError)) throw new Error(`expected a SyntheoError, got ${String(error)}`);
  return error;
}

/** The error of `p`, as [MCP text, CLI text]. */
async function worded(p: Promise<unknown>): Promise<[string, string]> {
  const e = await failure(p);
  return [mcp(e), cli(e)];
}

describe('a meeting ID that does not exist', () => {
  it('of the right kind: where to find meeting IDs', async () => {
    expect(await worded(store.meetings.get('mtg_nope'))).toEqual([
      'Meeting "mtg_nope" does not exist. Use list_meetings to find meeting IDs.',
      'Meeting "mtg_nope" does not exist. Use `syntheo meetings list` to find meeting IDs.',
    ]);
    // An unknown ID of a known kind says nothing about what it is.
    expect((await worded(store.meetings.get('ser_nope')))[0]).toBe('Meeting "ser_nope" does not exist. Use list_meetings to find meeting IDs.');
    expect((await worded(store.meetings.get('wrk_nope')))[0]).toBe('Meeting "wrk_nope" does not exist. Use list_meetings to find meeting IDs.');
  });

  it('a title, or an ID of no known kind', async () => {
    expect(await worded(store.meetings.get('Weekly sync 12'))).toEqual([
      'Meeting "Weekly sync 12" does not exist. "Weekly sync 12" is not a meeting ID (they look like mtg_...): to find a meeting by its title, pass a fragment of the title as query to list_meetings, then use the id it returns.',
      'Meeting "Weekly sync 12" does not exist. "Weekly sync 12" is not a meeting ID (they look like mtg_...): to find a meeting by its title, pass a fragment of the title as query to `syntheo meetings list`, then use the id it returns.',
    ]);
    expect((await worded(store.meetings.get('abc_123')))[0]).toBe(
      'Meeting "abc_123" does not exist. "abc_123" is not a meeting ID (they look like mtg_...): to find a meeting by its title, pass a fragment of the title as query to list_meetings, then use the id it returns.',
    );
  });

  it('an ID of another kind: what it is and where it goes', async () => {
    const m = (id: string) => `Meeting "${id}" does not exist. "${id}" `;
    expect(await worded(store.meetings.get(ids.series))).toEqual([
      `${m(ids.series)}is a series ID: pass it as series_id to list_meetings, or read the resource syntheo://series/${ids.series}.`,
      `${m(ids.series)}is a series ID: pass it as series_id to \`syntheo meetings list\`, or read the resource syntheo://series/${ids.series}.`,
    ]);
    expect(await worded(store.meetings.get(ids.summary))).toEqual([
      `${m(ids.summary)}is a summary ID: pass it as target_id to propose_summary_edit, with meeting_id "${ids.inSeries}" (its meeting).`,
      `${m(ids.summary)}is a summary ID: pass it as target_id to propose_summary_edit, with meeting_id "${ids.inSeries}" (its meeting).`,
    ]);
    expect(await worded(store.meetings.get(ids.proposal))).toEqual([
      `${m(ids.proposal)}is a proposal ID: pass it as proposal_id to get_proposal or decline_proposal (it proposes an edit to meeting "${ids.other}").`,
      `${m(ids.proposal)}is a proposal ID: pass it as proposal_id to get_proposal or decline_proposal (it proposes an edit to meeting "${ids.other}").`,
    ]);
    expect(await worded(store.meetings.get(ids.job))).toEqual([
      `${m(ids.job)}is an import job ID: pass it as job_id to get_recording_import (its meeting is "${ids.imported}").`,
      `${m(ids.job)}is an import job ID: pass it as job_id to get_recording_import (its meeting is "${ids.imported}").`,
    ]);
    expect(await worded(store.meetings.get(ids.folder))).toEqual([
      `${m(ids.folder)}is a folder ID; folders are passed by path: pass folder_path "Projets/Lancement" to list_meetings.`,
      `${m(ids.folder)}is a folder ID; folders are passed by path: pass folder_path "Projets/Lancement" to \`syntheo meetings list\`.`,
    ]);
    expect(await worded(store.meetings.get(ids.action))).toEqual([
      `${m(ids.action)}is an action item ID; action items come with their meeting: pass meeting_id "${ids.inSeries}" to get_meeting.`,
      `${m(ids.action)}is an action item ID; action items come with their meeting: pass meeting_id "${ids.inSeries}" to \`syntheo meetings get\`.`,
    ]);
    expect(await worded(store.meetings.get(ids.participant))).toEqual([
      `${m(ids.participant)}is a participant ID; participants come with their meeting: pass meeting_id "${ids.inSeries}" to get_meeting.`,
      `${m(ids.participant)}is a participant ID; participants come with their meeting: pass meeting_id "${ids.inSeries}" to \`syntheo meetings get\`.`,
    ]);
    expect(await worded(store.meetings.get(ids.transcript))).toEqual([
      `${m(ids.transcript)}is a transcript ID: pass its meeting's ID "${ids.inSeries}" as meeting_id to get_meeting_transcript.`,
      `${m(ids.transcript)}is a transcript ID: pass its meeting's ID "${ids.inSeries}" as meeting_id to \`syntheo meetings transcript\`.`,
    ]);
  });

  it('clips a long value', async () => {
    const long = `mtg_${'x'.repeat(300)}`;
    const [text] = await worded(store.meetings.get(long));
    expect(text).toBe(`Meeting "${long.slice(0, 120)}…" does not exist. Use list_meetings to find meeting IDs.`);
  });
});

describe('a series ID that does not exist', () => {
  it('names the series of a meeting ID, or says it has none', async () => {
    expect(await worded(store.series.get(ids.inSeries))).toEqual([
      `Series "${ids.inSeries}" does not exist. "${ids.inSeries}" is a meeting ID: pass it as meeting_id to get_recurring_meeting_history for the meetings of its series (its series_id is "${ids.series}").`,
      `Series "${ids.inSeries}" does not exist. "${ids.inSeries}" is a meeting ID: pass it as meeting_id to \`syntheo meetings history\` for the meetings of its series (its series_id is "${ids.series}").`,
    ]);
    expect((await worded(store.series.get(ids.other)))[0]).toBe(
      `Series "${ids.other}" does not exist. "${ids.other}" is a meeting ID: pass it as meeting_id to get_recurring_meeting_history for the meetings of its series (it belongs to no series).`,
    );
  });

  it('a title, and an unknown series ID', async () => {
    expect(await worded(store.series.get('Weekly sync'))).toEqual([
      'Series "Weekly sync" does not exist. "Weekly sync" is not a series ID (they look like ser_...): list_meetings shows each meeting\'s series_id; a fragment of the title goes in its query.',
      'Series "Weekly sync" does not exist. "Weekly sync" is not a series ID (they look like ser_...): `syntheo meetings list` shows each meeting\'s series_id; a fragment of the title goes in its query.',
    ]);
    expect(await worded(store.series.get('ser_nope'))).toEqual([
      'Series "ser_nope" does not exist. Use list_meetings (each meeting has a series_id) or get_recurring_meeting_history to find series IDs.',
      'Series "ser_nope" does not exist. Use `syntheo meetings list` (each meeting has a series_id) or `syntheo meetings history` to find series IDs.',
    ]);
  });
});

describe('a proposal ID that does not exist', () => {
  it('a meeting ID, a title, an unknown proposal ID', async () => {
    expect(await worded(store.proposals.get(ids.other))).toEqual([
      `Proposal "${ids.other}" does not exist. "${ids.other}" is a meeting ID: pass it as meeting_id to list_proposals to see the proposals made on it.`,
      `Proposal "${ids.other}" does not exist. "${ids.other}" is a meeting ID: pass it as meeting_id to \`syntheo proposals list\` to see the proposals made on it.`,
    ]);
    expect(await worded(store.proposals.decline('my proposal'))).toEqual([
      'Proposal "my proposal" does not exist. "my proposal" is not a proposal ID (they look like prp_...): list_proposals lists them.',
      'Proposal "my proposal" does not exist. "my proposal" is not a proposal ID (they look like prp_...): `syntheo proposals list` lists them.',
    ]);
    expect(await worded(store.proposals.apply('prp_nope', { force: false }))).toEqual([
      'Proposal "prp_nope" does not exist. Use list_proposals to find proposal IDs.',
      'Proposal "prp_nope" does not exist. Use `syntheo proposals list` to find proposal IDs.',
    ]);
  });
});

describe('an import job ID that does not exist', () => {
  it('a meeting ID with or without an import, a title, an unknown job ID', async () => {
    expect(await worded(store.imports.get(ids.imported))).toEqual([
      `Import job "${ids.imported}" does not exist. "${ids.imported}" is a meeting ID; its import job_id is "${ids.job}" (get_meeting shows it as recording_import).`,
      `Import job "${ids.imported}" does not exist. "${ids.imported}" is a meeting ID; its import job_id is "${ids.job}" (\`syntheo meetings get\` shows it as recording_import).`,
    ]);
    expect((await worded(store.imports.get(ids.other)))[0]).toBe(
      `Import job "${ids.other}" does not exist. "${ids.other}" is a meeting ID, and it was not imported from a recording: no import job belongs to it.`,
    );
    expect(await worded(store.imports.get('standup.wav'))).toEqual([
      'Import job "standup.wav" does not exist. "standup.wav" is not an import job ID (they look like job_...): use the job_id returned by import_recording, or get_meeting\'s recording_import.',
      'Import job "standup.wav" does not exist. "standup.wav" is not an import job ID (they look like job_...): use the job ID printed by `syntheo imports add` (see `syntheo imports list`), or `syntheo meetings get`\'s recording_import.',
    ]);
    expect(await worded(store.imports.get('job_nope'))).toEqual([
      'Import job "job_nope" does not exist. Use the job_id returned by import_recording.',
      'Import job "job_nope" does not exist. Use the job ID printed by `syntheo imports add` (see `syntheo imports list`).',
    ]);
  });
});

describe('a summary that is not one of the meeting', () => {
  const propose = (targetId: string) => store.proposals.proposeSummaryEdit({ meetingId: ids.inSeries, targetId, content: 'x' });
  it('a summary of another meeting, a meeting ID, a title, an unknown summary ID', async () => {
    expect(await worded(propose(ids.otherSummary))).toEqual([
      `Summary "${ids.otherSummary}" does not exist on meeting ${ids.inSeries}. It is a summary of meeting "${ids.other}": pass that meeting_id with it.`,
      `Summary "${ids.otherSummary}" does not exist on meeting ${ids.inSeries}. It is a summary of meeting "${ids.other}": pass that meeting_id with it.`,
    ]);
    expect(await worded(propose(ids.other))).toEqual([
      `Summary "${ids.other}" does not exist on meeting ${ids.inSeries}. "${ids.other}" is a meeting ID; target_id takes the ID of one of its summaries (sum_...): get_meeting lists them.`,
      `Summary "${ids.other}" does not exist on meeting ${ids.inSeries}. "${ids.other}" is a meeting ID; target_id takes the ID of one of its summaries (sum_...): \`syntheo meetings get\` lists them.`,
    ]);
    expect(await worded(propose('Summary'))).toEqual([
      `Summary "Summary" does not exist on meeting ${ids.inSeries}. "Summary" is not a summary ID (they look like sum_...): get_meeting lists a meeting's summaries and their IDs.`,
      `Summary "Summary" does not exist on meeting ${ids.inSeries}. "Summary" is not a summary ID (they look like sum_...): \`syntheo meetings get\` lists a meeting's summaries and their IDs.`,
    ]);
    expect(await worded(propose('sum_nope'))).toEqual([
      `Summary "sum_nope" does not exist on meeting ${ids.inSeries}. Use get_meeting to see the meeting's summaries and their IDs.`,
      `Summary "sum_nope" does not exist on meeting ${ids.inSeries}. Use \`syntheo meetings get\` to see the meeting's summaries and their IDs.`,
    ]);
  });
});

describe('a folder path that does not exist', () => {
  it('where to see the folder paths; the path of a folder ID', async () => {
    expect(await worded(store.folders.get('Nowhere'))).toEqual([
      'Folder "Nowhere" does not exist. Use list_folders to see the existing folder paths.',
      'Folder "Nowhere" does not exist. Use `syntheo folders list` to see the existing folder paths.',
    ]);
    expect(await worded(store.folders.get('a//b'))).toEqual([
      'Folder "a//b" does not exist. Use list_folders to see the existing folder paths.',
      'Folder "a//b" does not exist. Use `syntheo folders list` to see the existing folder paths.',
    ]);
    expect(await worded(store.folders.get(` ${ids.folder} `))).toEqual([
      `Folder " ${ids.folder} " does not exist. "${ids.folder}" is a folder ID; folders are passed by path: pass folder_path "Projets/Lancement".`,
      `Folder " ${ids.folder} " does not exist. "${ids.folder}" is a folder ID; folders are passed by path: pass folder_path "Projets/Lancement".`,
    ]);
    // What the user typed is quoted as typed, whatever words it holds.
    expect((await worded(store.folders.get('list_meetings')))[1]).toBe('Folder "list_meetings" does not exist. Use `syntheo folders list` to see the existing folder paths.');
    expect((await worded(store.meetings.list({ folderPath: 'Nowhere' }, { limit: 10, offset: 0 })))[0]).toBe(
      'Folder "Nowhere" does not exist. Use list_folders to see the existing folder paths.',
    );
  });
});

describe('a search with no word', () => {
  it('says what to pass', async () => {
    expect(await worded(store.search.transcripts({ query: ' *** ' }, { limit: 10, offset: 0 }))).toEqual([
      'query " *** " has no word to search for. Pass one or more words that were said or written, for example query: "budget review"; to list meetings without searching, use list_meetings.',
      'query " *** " has no word to search for. Pass one or more words that were said or written, for example query: "budget review"; to list meetings without searching, use `syntheo meetings list`.',
    ]);
  });
});

describe('an import that cannot be queued', () => {
  let audio: string;
  beforeAll(() => {
    audio = join(db.dir, 'audio');
    mkdirSync(audio);
    writeWav(join(audio, 'standup.wav'));
    writeWav(join(audio, 'other.wav'), 0.5);
  });
  const enqueue = (filePath: string, more: { requestKey?: string; duplicates?: 'refuse' } = {}) => store.imports.enqueue({ filePath, ...more });

  it('a bad file path, named as the surface names it', async () => {
    expect(await worded(enqueue(''))).toEqual(['file_path is empty. Give the absolute path of an audio file on this computer.', 'FILE is empty. Give the absolute path of an audio file on this computer.']);
    expect(await worded(enqueue('recordings/standup.wav'))).toEqual([
      'file_path "recordings/standup.wav" is relative. Give the absolute path of the file (the server\'s working directory is not yours).',
      'FILE "recordings/standup.wav" is relative. Give the absolute path of the file (the server\'s working directory is not yours).',
    ]);
    expect((await worded(enqueue('file_path/get_meeting.wav')))[1]).toBe(
      'FILE "file_path/get_meeting.wav" is relative. Give the absolute path of the file (the server\'s working directory is not yours).',
    );
    expect((await worded(enqueue('~/x.wav')))[1]).toBe('FILE "~/x.wav" starts with "~", which is not expanded here. Give the full absolute path (for example /home/you/recordings/meeting.m4a).');
    expect((await worded(enqueue('/a\0b')))[1]).toBe('FILE contains a NUL character. Give the absolute path of an audio file on this computer.');
    expect((await worded(enqueue(`/${'a'.repeat(5000)}`)))[1]).toBe('FILE is longer than 4096 bytes, the longest path this system accepts.');
    expect(await worded(enqueue(audio))).toEqual([`file_path "${audio}" is a directory. Give the path of an audio file.`, `FILE "${audio}" is a directory. Give the path of an audio file.`]);
    expect(await worded(enqueue('/dev/null'))).toEqual([
      'file_path "/dev/null" is not a regular file (it is a device, pipe or socket). Give the path of an audio file.',
      'FILE "/dev/null" is not a regular file (it is a device, pipe or socket). Give the path of an audio file.',
    ]);
  });

  it('a request key of the wrong length', async () => {
    expect(await worded(enqueue(join(audio, 'standup.wav'), { requestKey: '' }))).toEqual([
      'request_key must be 1 to 200 bytes long (UTF-8); got 0 bytes.',
      '--key must be 1 to 200 bytes long (UTF-8); got 0 bytes.',
    ]);
  });

  it('no worker running', async () => {
    expect(await worded(enqueue(join(audio, 'standup.wav'), { requestKey: 'k1' }))).toEqual([
      'The Syntheo app is not running, so nothing would process this recording. Start the worker with `syntheo-worker` (or `syntheo worker`), then call import_recording again with the same request_key.',
      'The Syntheo app is not running, so nothing would process this recording. Start the worker with `syntheo-worker` (or `syntheo worker`), then run the same command again.',
    ]);
  });

  it('a request key used for another file; content imported before', async () => {
    await store.workers.register({ id: 'wrk_wording', concurrency: 1, version: 'test' });
    const standup = join(audio, 'standup.wav');
    const job = await store.imports.enqueue({ filePath: standup, requestKey: 'k2' });
    expect(await worded(enqueue(join(audio, 'other.wav'), { requestKey: 'k2' }))).toEqual([
      `request_key "k2" was already used for another file (${standup}, job ${job.job_id}). Use a new request_key for a different file, or the same file_path to get that job back.`,
      `--key "k2" was already used for another file (${standup}, job ${job.job_id}). Use a new --key for a different file, or the same FILE to get that job back.`,
    ]);
    const same = `The file "${standup}" has the same content as an earlier import: meeting "standup" (${job.meeting_id}), job ${job.job_id}, queued. Nothing was queued.`;
    expect(await worded(enqueue(standup, { duplicates: 'refuse' }))).toEqual([
      `${same} Use that meeting: pass meeting_id "${job.meeting_id}" to get_meeting.`,
      `${same} Use that meeting (\`syntheo meetings get ${job.meeting_id}\`); to import the same content again anyway, add --allow-duplicate.`,
    ]);
  });
});

describe('the structure under the words', () => {
  it('names what is missing, the IDs involved and what the value is instead', async () => {
    const series = await failure(store.series.get(ids.inSeries));
    expect([series.kind, series.detail]).toEqual(['not_found', { type: 'not_found', what: 'series', id: ids.inSeries, hint: { is: 'meeting', seriesId: ids.series, jobId: null } }]);
    expect((await failure(store.imports.get(ids.imported))).detail).toEqual({ type: 'not_found', what: 'job', id: ids.imported, hint: { is: 'meeting', seriesId: null, jobId: ids.job } });
    expect((await failure(store.meetings.get('Weekly sync 12'))).detail).toEqual({ type: 'not_found', what: 'meeting', id: 'Weekly sync 12', hint: { is: 'text' } });
    expect((await failure(store.meetings.get('mtg_nope'))).detail).toEqual({ type: 'not_found', what: 'meeting', id: 'mtg_nope' });
    expect((await failure(store.proposals.get(ids.summary))).detail).toEqual({ type: 'not_found', what: 'proposal', id: ids.summary, hint: { is: 'summary', meetingId: ids.inSeries } });
    expect((await failure(store.folders.get(ids.folder))).detail).toEqual({ type: 'not_found', what: 'folder', id: ids.folder, hint: { is: 'folder', path: 'Projets/Lancement' } });
    expect((await failure(store.proposals.proposeSummaryEdit({ meetingId: ids.inSeries, targetId: ids.otherSummary, content: 'x' }))).detail).toEqual({
      type: 'not_found',
      what: 'summary',
      id: ids.otherSummary,
      meetingId: ids.inSeries,
      hint: { is: 'summary', meetingId: ids.other },
    });
    expect((await failure(store.search.transcripts({ query: '?' }, { limit: 1, offset: 0 }))).detail).toEqual({ type: 'no_search_word', query: '?' });
  });

  it('keeps a default message for logs that names no tool, parameter, command or flag', async () => {
    const errors = await Promise.all(
      [
        store.meetings.get('mtg_nope'),
        store.meetings.get('Weekly sync 12'),
        store.meetings.get(ids.series),
        store.meetings.get(ids.action),
        store.series.get(ids.inSeries),
        store.proposals.get(ids.other),
        store.imports.get(ids.imported),
        store.imports.get('job_nope'),
        store.proposals.proposeSummaryEdit({ meetingId: ids.inSeries, targetId: ids.otherSummary, content: 'x' }),
        store.folders.get('Nowhere'),
        store.folders.get(ids.folder),
        store.search.transcripts({ query: '' }, { limit: 1, offset: 0 }),
        store.imports.enqueue({ filePath: 'relative.wav' }),
        store.imports.enqueue({ filePath: '/x.wav', requestKey: 'k'.repeat(201) }),
      ].map(failure),
    );
    const messages = errors.map((e) => e.message);
    expect(messages.filter((m) => /\b(list|get|propose|decline)_\w+|_id\b|file_path|request_key|`|syntheo \w|--\w|FILE/.test(m))).toEqual([]);
    expect(messages.slice(0, 5)).toEqual([
      'Meeting "mtg_nope" does not exist.',
      'Meeting "Weekly sync 12" does not exist. It is not a meeting ID.',
      `Meeting "${ids.series}" does not exist. It is a series ID.`,
      `Meeting "${ids.action}" does not exist. It is an action item ID.`,
      `Series "${ids.inSeries}" does not exist. It is a meeting ID.`,
    ]);
  });

  it('words an error without structure as its message, on both surfaces', () => {
    const plain = new SyntheoError('conflict', 'Proposal prp_1 was already applied; only a pending proposal can be declined.');
    expect([mcp(plain), cli(plain)]).toEqual([plain.message, plain.message]);
  });
});

describe('over the built CLI', () => {
  it('quotes what the person typed as typed, even when it holds a tool name', async () => {
    const folder = await run(['--db', db.path, 'meetings', 'list', '--folder', 'list_meetings']);
    expect([folder.code, folder.stderr]).toEqual([2, 'syntheo: Folder "list_meetings" does not exist. Use `syntheo folders list` to see the existing folder paths.\n']);
    const job = await run(['--db', db.path, 'imports', 'show', 'get_meeting']);
    expect([job.code, job.stderr]).toEqual([
      2,
      'syntheo: Import job "get_meeting" does not exist. "get_meeting" is not an import job ID (they look like job_...): use the job ID printed by `syntheo imports add` (see `syntheo imports list`), or `syntheo meetings get`\'s recording_import.\n',
    ]);
  });
});
