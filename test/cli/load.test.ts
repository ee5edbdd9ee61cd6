// `syntheo load` as a person runs it: every export Syntheo writes loads back, what cannot be loaded is
// refused saying why, and the report names what was restored, skipped and not restored.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbIn, run, runJson } from './cli.js';
import { openTestDb } from '../support/db.js';
import { makeActionItem, makeMeeting, makeSummary, makeTranscript } from '../support/factories.js';
import { exportMeetingOrThrow } from '../../src/db/queries/export.js';

let db: ReturnType<typeof openTestDb>;
let a: string;
let b: string;

beforeAll(() => {
  db = openTestDb();
  a = makeMeeting(db.sqlite, { title: 'Alpha', folderPath: 'Team/Syncs', note: '# Alpha\n' });
  makeSummary(db.sqlite, a);
  makeActionItem(db.sqlite, a);
  makeTranscript(db.sqlite, a, { words: 40, speakers: ['Ann', 'Bo'] });
  b = makeMeeting(db.sqlite, { title: 'Beta' });
  makeTranscript(db.sqlite, b, { words: 7 });
});
afterAll(() => db?.cleanup());

const file = (name: string) => join(db.dir, name);

describe('every export loads back', () => {
  it('`syntheo --json meetings export` of one and of several meetings round-trips', async () => {
    for (const ids of [[a], [a, b]]) {
      const exported = await run(['--db', db.path, '--json', 'meetings', 'export', ...ids]);
      expect(exported.code).toBe(0);
      const fresh = dbIn(db.dir, `json-${ids.length}.db`);
      const loaded = await run(['--db', fresh, 'load', '-'], { input: exported.stdout });
      expect(loaded.stderr).toBe('');
      expect(loaded.code).toBe(0);
      expect(loaded.stdout).toContain(`Restored ${ids.length === 1 ? '1 meeting' : '2 meetings'} from stdin into ${fresh}:`);
      const again = await runJson(fresh, ['meetings', 'export', ...ids]);
      expect(again.body).toEqual(JSON.parse(exported.stdout));
    }
  });

  it('the file written by --output loads; the summary --json printed about it is refused, naming the file', async () => {
    const out = file('backup.json');
    const wrote = await runJson(db.path, ['meetings', 'export', a, b, '--output', out]);
    expect(wrote.code).toBe(0);
    writeFileSync(file('summary.json'), JSON.stringify(wrote.body));
    const refused = await run(['--db', dbIn(db.dir, 'summary.db'), 'load', file('summary.json')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`syntheo: The file holds the summary that \`syntheo --json meetings export --output\` printed, not the meetings: load the file it wrote, ${out}.\n`);
    const loaded = await runJson(dbIn(db.dir, 'backup.db'), ['load', out]);
    expect(loaded.code).toBe(0);
    expect(loaded.body.data.meetings.map((m: { id: string }) => m.id)).toEqual([a, b]);
    expect(loaded.body.data.failed).toEqual([]);
  });

  it('a Markdown export is refused with a message that says to export JSON', async () => {
    const md = await run(['--db', db.path, 'meetings', 'export', a, '--format', 'markdown', '-o', file('a.md')]);
    expect(md.code).toBe(0);
    const refused = await run(['--db', dbIn(db.dir, 'md.db'), 'load', file('a.md')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `syntheo: ${file('a.md')} is a Markdown export, which cannot be loaded: it leaves out what a restore needs (IDs, word timings). Export the meetings as JSON (the default of \`syntheo meetings export\`) and load that.\n`,
    );
  });
});

describe('the report', () => {
  it('restores what it can, names what it cannot (exit 1), and skips what is already there', async () => {
    const target = dbIn(db.dir, 'report.db');
    const good = exportMeetingOrThrow(db.sqlite, b);
    const bad = exportMeetingOrThrow(db.sqlite, a);
    bad.transcripts[0]!.segments[1]!.times[0]![1] = 1.5;
    writeFileSync(file('mixed.json'), JSON.stringify([bad, good]));
    const first = await run(['--db', target, 'load', file('mixed.json')]);
    expect(first.code).toBe(1);
    expect(first.stdout).toContain(`Restored 1 meeting from ${file('mixed.json')} into ${target}:`);
    expect(first.stdout).toMatch(new RegExp(`${b}\\s+Beta\\s+7\\n`));
    expect(first.stdout).toContain(`Could not restore 1 record (nothing of them was written):\n  Meeting ${a} (record 1): transcripts[0].segments[1].times[0][1]: an integer is expected.\n`);
    const second = await runJson(target, ['load', file('mixed.json')]);
    expect(second.code).toBe(1);
    expect(second.body.data).toMatchObject({ meetings: [], skipped: [{ id: b, title: 'Beta', reason: 'identical to the database' }], failed: [{ record: 1, id: a }] });
    // The refused meeting left nothing behind.
    const list = await runJson(target, ['meetings', 'list']);
    expect(list.body.data.map((m: { id: string }) => m.id)).toEqual([b]);
    expect(readFileSync(file('mixed.json'), 'utf8')).toContain('1.5');
  });
});
