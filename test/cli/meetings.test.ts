import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dbIn, run, runJson } from './cli.js';
import { openTestDb, tempDir } from '../support/db.js';
import { makeActionItem, makeMeeting, makeParticipant, makeSeries, makeSummary, makeTranscript } from '../support/factories.js';
import { openDatabase } from '../../src/db/open.js';
import { exportMeetingOrThrow } from '../../src/db/queries/export.js';

// Eight meetings: five of a weekly series in Team/Syncs (one with 450 transcript words), two in
// Projects/Launch and Projects/Launch/Design, one without folder; distinct days for --from/--to.
let db: ReturnType<typeof openTestDb>;
let path: string;
const ids: Record<string, string> = {};
let seriesId: string;

beforeAll(() => {
  db = openTestDb();
  path = db.path;
  const s = db.sqlite;
  seriesId = makeSeries(s, { id: 'ser_weekly00000000001', title: 'Weekly sync', cadence: 'weekly' });
  for (let i = 1; i <= 5; i++)
    ids[`sync${i}`] = makeMeeting(s, { id: `mtg_sync${i}000000000000`, title: `Weekly sync #${i}`, startedAt: `2026-01-0${i}T09:00:00.000Z`, seriesId, folderPath: 'Team/Syncs' });
  ids.launch = makeMeeting(s, {
    id: 'mtg_launch0000000000',
    title: 'Launch review 100%_done',
    startedAt: '2026-01-10T14:00:00.000Z',
    folderPath: 'Projects/Launch',
    note: '# Launch\n\nShip on Friday.\n',
    speakers: ['Alice', 'Bob'],
    speakerContext: 'Room mic',
  });
  ids.design = makeMeeting(s, { id: 'mtg_design0000000000', title: 'Design crit', startedAt: '2026-01-11T10:00:00.000Z', folderPath: 'Projects/Launch/Design' });
  ids.solo = makeMeeting(s, { id: 'mtg_solo000000000000', title: 'Solo thoughts', startedAt: '2026-01-12T08:00:00.000Z', folderPath: null });
  makeTranscript(s, ids.sync3!, { words: 450 });
  makeTranscript(s, ids.launch!, { texts: ['Hello', 'everyone,', 'welcome.', 'Thanks', 'Alice.', 'Let’s', 'ship.'], speakers: ['Alice', 'Bob', null], turn: 3 });
  makeSummary(s, ids.launch!, { id: 'sum_launch0000000001', title: 'Key points', content: '- Ship Friday\n- Budget ok\n' });
  makeSummary(s, ids.launch!, { id: 'sum_launch0000000002', title: 'Risks', content: 'Vendor delay.\n', position: 1 });
  makeParticipant(s, ids.launch!, { name: 'Alice Martin', email: 'alice@example.com', role: 'PM' });
  makeParticipant(s, ids.launch!, { name: 'Bob Stone', position: 1 });
  makeParticipant(s, ids.sync2!, { name: 'Alice Martin' });
  makeActionItem(s, ids.launch!, { text: 'Book the venue', assignee: 'Bob Stone', dueDate: '2026-01-20' });
  makeActionItem(s, ids.launch!, { text: 'Send invites', done: true, position: 1 });
});
afterAll(() => db.cleanup());

describe('meetings list', () => {
  it('newest first, as an aligned table with a count', async () => {
    const r = await run(['--db', path, 'meetings', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STARTED \(UTC\)\s+TITLE\s+FOLDER\s+WORDS$/);
    expect(lines.slice(1, 9).map((l) => l.split(/\s{2,}/)[0])).toEqual([
      ids.solo,
      ids.design,
      ids.launch,
      ids.sync5,
      ids.sync4,
      ids.sync3,
      ids.sync2,
      ids.sync1,
    ]);
    expect(lines[1]).toMatch(/^mtg_solo000000000000\s+2026-01-12 08:00  Solo thoughts\s+—\s+0$/);
    expect(lines[6]).toMatch(/ Team\/Syncs\s+450$/);
    // Columns line up: every row starts its STARTED column where the header does.
    const col = lines[0]!.indexOf('STARTED');
    for (const l of lines.slice(1, 9)) expect(l.slice(col, col + 10)).toMatch(/^2026-01-\d\d$/);
    expect(lines.at(-1)).toBe('8 meetings.');
  });

  it('--json: the envelope with the meetings and pagination', async () => {
    const { code, body } = await runJson(path, ['meetings', 'list', '--limit', '3', '--offset', '2']);
    expect(code).toBe(0);
    expect(body.schema_version).toBe(1);
    expect(body.command).toBe('meetings list');
    expect(body.data.map((m: { id: string }) => m.id)).toEqual([ids.launch, ids.sync5, ids.sync4]);
    expect(body.data[0]).toMatchObject({ title: 'Launch review 100%_done', folder_path: 'Projects/Launch', series_id: null, transcript_word_count: 7, summary_count: 2 });
    expect(body.pagination).toEqual({ offset: 2, limit: 3, returned: 3, total: 8, next_offset: 5 });
  });

  it('the human footer points at the next page', async () => {
    const r = await run(['--db', path, 'meetings', 'list', '--limit', '3', '--offset', '2']);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('Showing 3–5 of 8 meetings. Next page: --offset 5');
  });

  it('clamps like list_meetings: limit into 1..200, negative offset to 0; no next_offset on the last page', async () => {
    const big = await runJson(path, ['meetings', 'list', '--limit', '5000']);
    expect(big.body.pagination).toEqual({ offset: 0, limit: 200, returned: 8, total: 8 });
    const zero = await runJson(path, ['meetings', 'list', '--limit', '0', '--offset=-4']);
    expect(zero.body.pagination).toEqual({ offset: 0, limit: 1, returned: 1, total: 8, next_offset: 1 });
    const past = await runJson(path, ['meetings', 'list', '--offset', '50']);
    expect(past.body.data).toEqual([]);
    expect(past.body.pagination).toEqual({ offset: 50, limit: 20, returned: 0, total: 8 });
  });

  it('filters: query (% and _ literal), folder subtree, series, dates, participant, combined', async () => {
    const idsOf = async (args: string[]) => (await runJson(path, ['meetings', 'list', ...args])).body.data.map((m: { id: string }) => m.id);
    expect(await idsOf(['--query', '100%_'])).toEqual([ids.launch]);
    expect(await idsOf(['--query', '%'])).toEqual([ids.launch]);
    expect(await idsOf(['--query', 'SYNC #2'])).toEqual([ids.sync2]);
    expect(await idsOf(['--query', 'design000'])).toEqual([ids.design]);
    expect(await idsOf(['--folder', 'Projects'])).toEqual([ids.design, ids.launch]);
    expect(await idsOf(['--folder', 'projects/launch/design'])).toEqual([ids.design]);
    expect(await idsOf(['--series', seriesId, '--limit', '2'])).toEqual([ids.sync5, ids.sync4]);
    expect(await idsOf(['--from', '2026-01-04', '--to', '2026-01-10'])).toEqual([ids.launch, ids.sync5, ids.sync4]);
    expect(await idsOf(['--to', '2026-01-01'])).toEqual([ids.sync1]);
    expect(await idsOf(['--participant', 'alice'])).toEqual([ids.launch, ids.sync2]);
    expect(await idsOf(['--participant', 'alice', '--folder', 'Team'])).toEqual([ids.sync2]);
    expect(await idsOf(['--query', 'nothing like this'])).toEqual([]);
  });

  it('an empty result says so, and unknown folder/series exit 2 naming the command that lists them', async () => {
    const none = await run(['--db', path, 'meetings', 'list', '--query', 'zzz']);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('No meeting matches these filters.\n');
    const folder = await run(['--db', path, 'meetings', 'list', '--folder', 'Nowhere']);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toBe('syntheo: Folder "Nowhere" does not exist. Use `syntheo folders list` to see the existing folder paths.\n');
    const series = await runJson(path, ['meetings', 'list', '--series', 'ser_nope']);
    expect(series.code).toBe(2);
    expect(series.body.error.code).toBe('not_found');
    expect(series.body.error.message).toContain('Series "ser_nope" does not exist');
    const date = await run(['--db', path, 'meetings', 'list', '--from', 'yesterday-ish']);
    expect(date.code).toBe(1);
    expect(date.stderr).toContain('"from" must be an ISO 8601 date');
  });
});

describe('meetings get', () => {
  it('prints Markdown for people', async () => {
    const r = await run(['--db', path, 'meetings', 'get', ids.launch!]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('# Launch review 100%_done\n\n- ID: `mtg_launch0000000000`\n');
    expect(r.stdout).toContain('- Folder: Projects/Launch\n');
    expect(r.stdout).toContain('- Transcript: 7 words (read it with `syntheo meetings transcript mtg_launch0000000000`)');
    expect(r.stdout).toContain('## Key points (`sum_launch0000000001`)\n\n- Ship Friday\n- Budget ok\n');
    expect(r.stdout).toContain('- Alice Martin <alice@example.com> — PM\n');
    expect(r.stdout).toContain('- [ ] Book the venue — Bob Stone (due 2026-01-20)\n- [x] Send invites\n');
    expect(r.stdout).toContain('## Note\n\n# Launch\n\nShip on Friday.\n');
  });

  it('--json gives the get_meeting detail', async () => {
    const { code, body } = await runJson(path, ['meetings', 'get', ids.launch!]);
    expect(code).toBe(0);
    expect(body.command).toBe('meetings get');
    expect(body.data).toMatchObject({
      id: ids.launch,
      folder_path: 'Projects/Launch',
      series: null,
      note: '# Launch\n\nShip on Friday.\n',
      speakers: ['Alice', 'Bob'],
      speaker_context: 'Room mic',
      pending_proposal_count: 0,
      processing_status: null,
      recording_import: null,
    });
    expect(body.data.summaries.map((s: { title: string }) => s.title)).toEqual(['Key points', 'Risks']);
    expect(body.data.transcript.word_count).toBe(7);
    expect(body.data).not.toHaveProperty('transcripts');
  });

  it('unknown id: exit 2 with the command to find ids', async () => {
    const r = await run(['--db', path, 'meetings', 'get', 'mtg_nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('syntheo: Meeting "mtg_nope" does not exist. Use `syntheo meetings list` to find meeting IDs.\n');
  });
});

describe('meetings transcript', () => {
  it('prints speaker turns and a paging footer', async () => {
    const r = await run(['--db', path, 'meetings', 'transcript', ids.launch!]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Alice: Hello everyone, welcome.\nBob: Thanks Alice. Let’s\nship.\n\n7 words.\n');
  });

  it('pages by word offset with the MCP clamps (default 200, max 500)', async () => {
    const first = await runJson(path, ['meetings', 'transcript', ids.sync3!]);
    expect(first.body.pagination).toEqual({ offset: 0, limit: 200, returned: 200, total: 450, next_offset: 200 });
    const page = await runJson(path, ['meetings', 'transcript', ids.sync3!, '--offset', '440', '--limit', '9999']);
    expect(page.body.pagination).toEqual({ offset: 440, limit: 500, returned: 10, total: 450 });
    // Speakers alternate every 7 words: word 440 is in turn 62, Alice's.
    expect(page.body.data.words[0]).toEqual({ index: 440, text: 'w440', start_ms: 176_000, end_ms: 176_300, speaker: 'Alice' });
    expect(page.body.data.text).toBe('Alice: w440\nBob: w441 w442 w443 w444 w445 w446 w447\nAlice: w448 w449');
    const human = await run(['--db', path, 'meetings', 'transcript', ids.sync3!, '--offset', '7', '--limit', '3']);
    expect(human.stdout).toBe('Bob: w7 w8 w9\n\nShowing 8–10 of 450 words. Next page: --offset 10\n');
  });

  it('a meeting without transcript, and an offset past the end', async () => {
    expect((await run(['--db', path, 'meetings', 'transcript', ids.solo!])).stdout).toBe('This meeting has no transcript (yet).\n');
    expect((await run(['--db', path, 'meetings', 'transcript', ids.launch!, '--offset', '99'])).stdout).toBe('No words at offset 99: the transcript has 7 words.\n');
  });
});

describe('meetings history', () => {
  it('lists the series newest first, paged', async () => {
    const r = await run(['--db', path, 'meetings', 'history', ids.sync2!, '--limit', '2', '--offset', '1']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Series: Weekly sync (${seriesId}, weekly)`);
    expect(lines.filter((l) => l.startsWith('mtg_')).map((l) => l.split(' ')[0])).toEqual([ids.sync4, ids.sync3]);
    expect(lines.at(-1)).toBe('Showing 2–3 of 5 meetings. Next page: --offset 3');
    const j = await runJson(path, ['meetings', 'history', ids.sync2!, '--limit', '2']);
    expect(j.body.data.series).toEqual({ id: seriesId, title: 'Weekly sync', cadence: 'weekly' });
    expect(j.body.pagination).toEqual({ offset: 0, limit: 2, returned: 2, total: 5, next_offset: 2 });
  });

  it('a meeting outside any series has an empty history', async () => {
    const r = await run(['--db', path, 'meetings', 'history', ids.launch!]);
    expect(r.stdout).toBe(`Meeting ${ids.launch} does not belong to a recurring series.\n`);
    const j = await runJson(path, ['meetings', 'history', ids.launch!]);
    expect(j.body.data.meetings).toEqual([]);
    expect(j.body.pagination).toEqual({ offset: 0, limit: 20, returned: 0, total: 0 });
  });
});

describe('meetings export and load', () => {
  let out: ReturnType<typeof tempDir>;
  beforeAll(() => {
    out = tempDir();
  });
  afterAll(() => out.cleanup());

  it('JSON export is the export_meeting record; several ids give an array', async () => {
    const one = await run(['--db', path, 'meetings', 'export', ids.launch!]);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual(exportMeetingOrThrow(db.sqlite, ids.launch!));
    const many = await run(['--db', path, 'meetings', 'export', ids.launch!, ids.sync3!]);
    expect(JSON.parse(many.stdout)).toEqual([exportMeetingOrThrow(db.sqlite, ids.launch!), exportMeetingOrThrow(db.sqlite, ids.sync3!)]);
    const enveloped = await runJson(path, ['meetings', 'export', ids.launch!]);
    expect(enveloped.body.data).toEqual(exportMeetingOrThrow(db.sqlite, ids.launch!));
  });

  it('export -> load into a fresh database -> export is byte-for-byte identical', async () => {
    const file = join(out.dir, 'all.json');
    const all = Object.values(ids);
    const wrote = await run(['--db', path, 'meetings', 'export', ...all, '--output', file]);
    expect(wrote.code).toBe(0);
    expect(wrote.stdout).toMatch(new RegExp(`^Wrote 8 meetings \\(json, [\\d.]+ KiB\\) to ${file}\\.\\n$`));
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const fresh = dbIn(out.dir, 'fresh.db');
    const loaded = await run(['--db', fresh, 'load', file]);
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toContain(`Restored 8 meetings from ${file} into ${fresh}:`);
    expect(loaded.stdout).toMatch(/mtg_sync3000000000000\s+Weekly sync #3\s+450/);

    const again = join(out.dir, 'again.json');
    expect((await run(['--db', fresh, 'meetings', 'export', ...all, '-o', again])).code).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(readFileSync(file, 'utf8'));
    // The restored database answers like the original.
    const list = await runJson(fresh, ['meetings', 'list', '--folder', 'Projects']);
    expect(list.body.data.map((m: { id: string }) => m.id)).toEqual([ids.design, ids.launch]);
  });

  it('loading twice changes nothing; stdin works', async () => {
    const file = join(out.dir, 'twice.json');
    await run(['--db', path, 'meetings', 'export', ids.launch!, ids.sync1!, '-o', file]);
    const target = dbIn(out.dir, 'twice.db');
    expect((await run(['--db', target, 'load', file])).code).toBe(0);
    const snapshot = () => {
      const t = openDatabase(target, { create: false });
      try {
        const tables = ['meetings', 'folders', 'series', 'summaries', 'participants', 'action_items', 'transcripts', 'transcript_words'];
        return Object.fromEntries(
          // Participant rows get fresh ids on each load (exports do not carry them): compare them by position.
          tables.map((name) => [
            name,
            t.sqlite
              .prepare(name === 'participants' ? 'SELECT meeting_id, position, name, email, role FROM participants ORDER BY 1, 2' : `SELECT * FROM ${name} ORDER BY 1, 2`)
              .all(),
          ]),
        );
      } finally {
        t.close();
      }
    };
    const before = snapshot();
    const second = await run(['--db', target, 'load', '-'], { input: readFileSync(file, 'utf8') });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain(`Skipped 2 meetings already in ${target} as in the file:`);
    expect(snapshot()).toEqual(before);
    expect(before.meetings).toHaveLength(2);
    expect((before.folders as { path: string }[]).map((f) => f.path)).toEqual(expect.arrayContaining(['Projects', 'Projects/Launch', 'Team', 'Team/Syncs']));
  });

  it('refuses to overwrite without --force (exit 4), then --force replaces the file', async () => {
    const file = join(out.dir, 'keep.json');
    writeFileSync(file, 'precious');
    const refused = await run(['--db', path, 'meetings', 'export', ids.solo!, '--output', file]);
    expect(refused.code).toBe(4);
    expect(refused.stderr).toBe(`syntheo: ${file} already exists. Pass --force to overwrite it, or choose another --output.\n`);
    expect(readFileSync(file, 'utf8')).toBe('precious');
    const json = await runJson(path, ['meetings', 'export', ids.solo!, '--output', file]);
    expect(json.body).toEqual({ schema_version: 1, error: { code: 'exists', message: expect.stringContaining('already exists'), exit_code: 4 } });
    const forced = await runJson(path, ['meetings', 'export', ids.solo!, '--output', file, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.body.data).toMatchObject({ path: file, format: 'json', meetings: [{ id: ids.solo, title: 'Solo thoughts' }] });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(exportMeetingOrThrow(db.sqlite, ids.solo!));
  });

  it('an unknown id writes nothing (exit 2)', async () => {
    const file = join(out.dir, 'partial.json');
    const r = await run(['--db', path, 'meetings', 'export', ids.solo!, 'mtg_missing', '-o', file]);
    expect(r.code).toBe(2);
    expect(existsSync(file)).toBe(false);
  });

  it('Markdown export includes the transcript with timestamps', async () => {
    const r = await run(['--db', path, 'meetings', 'export', ids.launch!, '--format', 'markdown']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('## Transcript (7 words, en)\n\n[0:00] **Alice** Hello everyone, welcome.\n\n[0:01] **Bob** Thanks Alice. Let’s\n\n[0:02] **Unknown** ship.\n');
    expect((await run(['--db', path, 'meetings', 'export', ids.launch!, '--format', 'pdf'])).code).toBe(64);
  });

  it('load rejects what is not an export, naming the problem (exit 1)', async () => {
    const target = dbIn(out.dir, 'bad.db');
    const notJson = await run(['--db', target, 'load', '-'], { input: '{"format": ' });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('stdin is not valid JSON');
    const wrong = await run(['--db', target, 'load', '-'], { input: JSON.stringify({ format: 'other', id: 'x' }) });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('Record 1 is not a Syntheo meeting export (syntheo.meeting/v1): format:');
    const missing = await run(['--db', target, 'load', join(out.dir, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('nope.json: it does not exist.');
  });
});

describe('folders', () => {
  it('create makes the parents; list shows them in tree order with meeting counts', async () => {
    const created = await run(['--db', path, 'folders', 'create', ' Clients / ACME/Calls ']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created Clients, Clients\/ACME, Clients\/ACME\/Calls \(Clients\/ACME\/Calls is fld_\w+\)\.\n$/);
    const again = await runJson(path, ['folders', 'create', 'Clients/ACME']);
    expect(again.body.data).toMatchObject({ path: 'Clients/ACME', created: [] });
    const list = await run(['--db', path, 'folders', 'list']);
    expect(list.stdout).toBe(
      [
        'PATH                    MEETINGS',
        'Clients                        0',
        'Clients/ACME                   0',
        'Clients/ACME/Calls             0',
        'Projects                       0',
        'Projects/Launch                1',
        'Projects/Launch/Design         1',
        'Team                           0',
        'Team/Syncs                     5',
        '',
        '8 folders.',
        '',
      ].join('\n'),
    );
    const q = await runJson(path, ['folders', 'list', '--query', 'launch', '--limit', '1']);
    expect(q.body.data).toEqual([{ id: expect.stringMatching(/^fld_/), path: 'Projects/Launch', name: 'Launch', parent_path: 'Projects', meeting_count: 1 }]);
    expect(q.body.pagination).toEqual({ offset: 0, limit: 1, returned: 1, total: 2, next_offset: 1 });
  });

  it('create refuses an empty segment and creates no database for it', async () => {
    const fresh = dbIn(tempDir().dir, 'x.db');
    const r = await run(['--db', fresh, 'folders', 'create', 'A//B']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has an empty segment');
    expect(existsSync(fresh)).toBe(false);
  });
});
