// Errors that steer: an ID of the wrong kind (or a title) names what it is and the tool that takes it;
// a reversed date range and a search with nothing to search for say what to pass. Over the built
// `syntheo mcp` with the SDK's client; codes as the reference says (-32602 not found, -32603 otherwise).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { proposeMemoEdit } from '../../src/db/queries/proposals.js';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { makeActionItem, makeMeeting, makeSeries, makeSummary, makeTranscript } from '../support/factories.js';
import { call, callError, connectV2, errorOf } from '../support/mcp.js';

let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;
// Made before the server starts (the postgres project copies the file then): a summary of another meeting, a meeting in a folder with accents.
let otherSummary: string;
let cafe: string;
const ids: Record<'series' | 'inSeries' | 'other' | 'summary' | 'proposal' | 'action' | 'job' | 'imported' | 'folder', string> = {} as never;

beforeAll(async () => {
  db = openTestDb();
  const s = db.sqlite;
  ids.series = makeSeries(s, { title: 'Weekly sync' });
  ids.inSeries = makeMeeting(s, { title: 'Weekly sync 12', seriesId: ids.series, folderPath: 'Projets/Lancement' });
  ids.other = makeMeeting(s, { title: 'Budget review' });
  ids.summary = makeSummary(s, ids.inSeries);
  makeTranscript(s, ids.inSeries, { texts: ['the', 'budget', 'review'] });
  ids.action = makeActionItem(s, ids.inSeries);
  ids.proposal = proposeMemoEdit(s, { meetingId: ids.other, content: 'New note\n' }).id;
  ids.folder = (s.prepare("SELECT id FROM folders WHERE path = 'Projets/Lancement'").get() as { id: string }).id;
  ids.imported = makeMeeting(s, { title: 'Imported call' });
  ids.job = 'job_steering0000000001';
  s.prepare(
    `INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, status, summary_status, created_at, updated_at)
     VALUES (?, ?, '/tmp/call.wav', 10, 0, 'wav', 'done', 'done', '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z')`,
  ).run(ids.job, ids.imported);
  otherSummary = makeSummary(s, ids.other, { content: 'Other summary' });
  cafe = makeMeeting(s, { title: 'Réunion équipe', folderPath: 'Café/Réunion' });
  ({ client, close } = await connectV2((await serve(db.path)).location, 'modern'));
});

afterAll(async () => {
  await close?.();
  db?.cleanup();
});

const notFound = (message: RegExp) => ({ code: -32602, message: expect.stringMatching(message) });

describe('an ID of the wrong kind passed as meeting_id', () => {
  it('names a series ID and where it goes, in every tool that takes meeting_id', async () => {
    const series = new RegExp(`^Meeting "${ids.series}" does not exist\\. "${ids.series}" is a series ID: pass it as series_id to list_meetings, or read the resource syntheo://series/${ids.series}\\.$`);
    for (const tool of ['get_meeting', 'get_meeting_transcript', 'export_meeting', 'get_recurring_meeting_history', 'list_proposals'])
      expect([tool, await callError(client, tool, { meeting_id: ids.series })]).toEqual([tool, notFound(series)]);
    expect(await callError(client, 'propose_memo_edit', { meeting_id: ids.series, content: 'x' })).toEqual(notFound(series));
    expect(await callError(client, 'propose_summary_edit', { meeting_id: ids.series, content: 'x' })).toEqual(notFound(series));
  });

  it('names summary, proposal, job, folder and action item IDs with their meeting', async () => {
    expect(await callError(client, 'get_meeting', { meeting_id: ids.summary })).toEqual(
      notFound(new RegExp(`"${ids.summary}" is a summary ID: pass it as target_id to propose_summary_edit, with meeting_id "${ids.inSeries}" \\(its meeting\\)\\.$`)),
    );
    expect(await callError(client, 'get_meeting', { meeting_id: ids.proposal })).toEqual(
      notFound(new RegExp(`"${ids.proposal}" is a proposal ID: pass it as proposal_id to get_proposal or decline_proposal \\(it proposes an edit to meeting "${ids.other}"\\)\\.$`)),
    );
    expect(await callError(client, 'get_meeting_transcript', { meeting_id: ids.job })).toEqual(
      notFound(new RegExp(`"${ids.job}" is an import job ID: pass it as job_id to get_recording_import \\(its meeting is "${ids.imported}"\\)\\.$`)),
    );
    expect(await callError(client, 'export_meeting', { meeting_id: ids.folder })).toEqual(
      notFound(new RegExp(`"${ids.folder}" is a folder ID; folders are passed by path: pass folder_path "Projets/Lancement" to list_meetings\\.$`)),
    );
    expect(await callError(client, 'get_meeting', { meeting_id: ids.action })).toEqual(
      notFound(new RegExp(`"${ids.action}" is an action item ID; action items come with their meeting: pass meeting_id "${ids.inSeries}" to get_meeting\\.$`)),
    );
  });

  it('tells a title from an ID and says how to find the meeting', async () => {
    expect(await callError(client, 'get_meeting', { meeting_id: 'Weekly sync 12' })).toEqual(
      notFound(/^Meeting "Weekly sync 12" does not exist\. "Weekly sync 12" is not a meeting ID \(they look like mtg_\.\.\.\): to find a meeting by its title, pass a fragment of the title as query to list_meetings/),
    );
    // An unknown ID of the right kind keeps the plain message.
    expect(await callError(client, 'get_meeting', { meeting_id: 'mtg_nope' })).toEqual({ code: -32602, message: 'Meeting "mtg_nope" does not exist. Use list_meetings to find meeting IDs.' });
  });
});

describe('an ID of the wrong kind passed as proposal_id, job_id, series_id, target_id or folder_path', () => {
  it('points a meeting ID to the tool that takes it', async () => {
    expect(await callError(client, 'get_proposal', { proposal_id: ids.other })).toEqual(
      notFound(new RegExp(`^Proposal "${ids.other}" does not exist\\. "${ids.other}" is a meeting ID: pass it as meeting_id to list_proposals to see the proposals made on it\\.$`)),
    );
    expect(await callError(client, 'decline_proposal', { proposal_id: ids.summary })).toEqual(notFound(/is a summary ID: pass it as target_id to propose_summary_edit/));
    expect(await callError(client, 'get_recording_import', { job_id: ids.imported })).toEqual(
      notFound(new RegExp(`^Import job "${ids.imported}" does not exist\\. "${ids.imported}" is a meeting ID; its import job_id is "${ids.job}"`)),
    );
    expect(await callError(client, 'list_meetings', { series_id: ids.inSeries })).toEqual(
      notFound(new RegExp(`^Series "${ids.inSeries}" does not exist\\. "${ids.inSeries}" is a meeting ID: pass it as meeting_id to get_recurring_meeting_history for the meetings of its series \\(its series_id is "${ids.series}"\\)\\.$`)),
    );
    expect(await callError(client, 'search_transcripts', { query: 'budget', series_id: 'Weekly sync' })).toEqual(notFound(/"Weekly sync" is not a series ID \(they look like ser_\.\.\.\)/));
    expect(await callError(client, 'list_meetings', { folder_path: ids.folder })).toEqual(
      notFound(new RegExp(`^Folder "${ids.folder}" does not exist\\. "${ids.folder}" is a folder ID; folders are passed by path: pass folder_path "Projets/Lancement"\\.$`)),
    );
  });

  it('names the meeting a summary of another meeting belongs to', async () => {
    const other = otherSummary;
    expect(await callError(client, 'propose_summary_edit', { meeting_id: ids.inSeries, target_id: other, content: 'x' })).toEqual(
      notFound(new RegExp(`^Summary "${other}" does not exist on meeting ${ids.inSeries}\\. It is a summary of meeting "${ids.other}": pass that meeting_id with it\\.$`)),
    );
    expect(await callError(client, 'propose_summary_edit', { meeting_id: ids.inSeries, target_id: ids.inSeries, content: 'x' })).toEqual(
      notFound(/is a meeting ID; target_id takes the ID of one of its summaries \(sum_\.\.\.\): get_meeting lists them\.$/),
    );
  });
});

describe('resources with an ID of the wrong kind', () => {
  it('answer -32602 naming what the ID is', async () => {
    expect(await errorOf(client.readResource({ uri: `syntheo://meetings/${ids.series}` }))).toMatchObject(notFound(new RegExp(`"${ids.series}" is a series ID: pass it as series_id to list_meetings`)));
    expect(await errorOf(client.readResource({ uri: `syntheo://meetings/${ids.summary}/transcript` }))).toMatchObject(notFound(/is a summary ID/));
    expect(await errorOf(client.readResource({ uri: `syntheo://series/${ids.inSeries}` }))).toMatchObject(notFound(new RegExp(`its series_id is "${ids.series}"`)));
  });
});

describe('filters that cannot match', () => {
  it('refuse a reversed date range and a search with no word, with -32603 and what to pass', async () => {
    expect(await callError(client, 'list_meetings', { from: '2026-03-12', to: '2026-03-10' })).toEqual({
      code: -32603,
      message: '"from" (2026-03-12) is after "to" (2026-03-10), so no meeting can match. Pass the earlier date as from and the later one as to: from "2026-03-10", to "2026-03-12".',
    });
    expect(await callError(client, 'search_transcripts', { query: '  ' })).toEqual({ code: -32603, message: expect.stringMatching(/^query " +" has no word to search for\. Pass one or more words/) });
    expect(await callError(client, 'list_meetings', { to: '+010000-01-01' })).toEqual({ code: -32603, message: expect.stringMatching(/^"to" must be an ISO 8601 date or date-time between 0000-01-01 and 9999-12-31/) });
  });
});

describe('Unicode forms and case beyond ASCII, over MCP', () => {
  it('finds a folder, its meetings and titles from an NFD or upper-case path or fragment', async () => {
    const ids = (r: { meetings: { id: string }[] }) => r.meetings.map((m) => m.id);
    expect(ids(await call(client, 'list_meetings', { folder_path: 'Café/Réunion'.normalize('NFD') }))).toEqual([cafe]);
    expect(ids(await call(client, 'list_meetings', { folder_path: 'CAFÉ/RÉUNION' }))).toEqual([cafe]);
    expect(ids(await call(client, 'list_meetings', { query: 'réunion'.normalize('NFD') }))).toEqual([cafe]);
    expect(ids(await call(client, 'list_meetings', { query: 'ÉQ' }))).toEqual([cafe]);
    expect((await call(client, 'list_folders', { query: 'CAFÉ' })).folders.map((f: { path: string }) => f.path)).toEqual(['Café', 'Café/Réunion']);
  });
});
