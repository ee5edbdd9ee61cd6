import { describe, expect, it } from 'vitest';
import { listMeetings } from '../../src/db/queries/meetings.js';
import { listFolders, ensureFolderPath } from '../../src/db/queries/folders.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant } from '../support/factories.js';

const db = testDbs();
const page = { limit: 50, offset: 0 };

describe('list_meetings participant filter', () => {
  it('matches a fragment of a name or e-mail, case-insensitively, and follows changes', () => {
    const s = db();
    const a = makeMeeting(s, { title: 'A' });
    const b = makeMeeting(s, { title: 'B' });
    makeParticipant(s, a, { name: 'Chloé Dubois', email: 'chloe@acme.test' });
    makeParticipant(s, b, { name: 'Bob Chen', email: 'bob@example.test' });
    const titles = (participant: string) => listMeetings(s, { participant }, page).meetings.map((m) => m.title).sort();
    expect(titles('CHLOÉ')).toEqual(['A']);
    expect(titles('acme.TEST')).toEqual(['A']);
    expect(titles('b@e')).toEqual(['B']);
    expect(titles('o')).toEqual(['A', 'B']); // one character: LIKE
    expect(titles('%')).toEqual([]);
    s.prepare("UPDATE participants SET email = 'chloe@example.test' WHERE meeting_id = ?").run(a);
    expect(titles('example.test')).toEqual(['A', 'B']);
    s.prepare('DELETE FROM meetings WHERE id = ?').run(b);
    expect(titles('example.test')).toEqual(['A']);
  });
});

describe('folder meeting counts', () => {
  it('follow inserts, moves and deletions', () => {
    const s = db();
    const a = makeMeeting(s, { folderPath: 'Acme/Launch' });
    makeMeeting(s, { folderPath: 'Acme/Launch' });
    makeMeeting(s, { folderPath: 'Acme' });
    ensureFolderPath(s, 'Empty');
    const counts = () => Object.fromEntries(listFolders(s, {}, page).folders.map((f) => [f.path, f.meeting_count]));
    expect(counts()).toEqual({ Acme: 1, 'Acme/Launch': 2, Empty: 0 });
    s.prepare("UPDATE meetings SET folder_id = (SELECT id FROM folders WHERE path = 'Empty') WHERE id = ?").run(a);
    expect(counts()).toEqual({ Acme: 1, 'Acme/Launch': 1, Empty: 1 });
    s.prepare('UPDATE meetings SET folder_id = NULL WHERE id = ?').run(a);
    s.prepare("DELETE FROM meetings WHERE folder_id = (SELECT id FROM folders WHERE path = 'Acme')").run();
    expect(counts()).toEqual({ Acme: 0, 'Acme/Launch': 1, Empty: 0 });
  });

  it('lists folders in tree order with parents before children', () => {
    const s = db();
    for (const p of ['Projets/Lancement', 'Projets 2', 'alpha', 'Projets/Archive/2025']) ensureFolderPath(s, p);
    expect(listFolders(s, {}, page).folders.map((f) => [f.path, f.parent_path])).toEqual([
      ['alpha', null],
      ['Projets', null],
      ['Projets/Archive', 'Projets'],
      ['Projets/Archive/2025', 'Projets/Archive'],
      ['Projets/Lancement', 'Projets'],
      ['Projets 2', null],
    ]);
  });
});

describe('imported meetings', () => {
  it('read an active job whose lease expired as failed, in lists and in the detail', async () => {
    const { getMeetingOrThrow } = await import('../../src/db/queries/meetings.js');
    const s = db();
    const id = makeMeeting(s, { title: 'Imported' });
    const past = new Date(Date.now() - 60_000).toISOString();
    s.prepare(
      `INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, status, summary_status, worker_id, lease_expires_at, created_at, updated_at)
       VALUES ('job_x', ?, '/tmp/a.wav', 10, 0, 'wav', 'transcribing', 'pending', 'wrk_gone', ?, ?, ?)`,
    ).run(id, past, past, past);
    expect(listMeetings(s, {}, page).meetings[0]!.processing_status).toBe('failed');
    const detail = getMeetingOrThrow(s, id);
    expect(detail.processing_status).toBe('failed');
    expect(detail.recording_import!.error).toMatch(/^Interrupted/);
    s.prepare("UPDATE recording_imports SET lease_expires_at = ? WHERE id = 'job_x'").run(new Date(Date.now() + 60_000).toISOString());
    expect(listMeetings(s, {}, page).meetings[0]!.processing_status).toBe('transcribing');
  });
});
