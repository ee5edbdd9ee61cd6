// Folder paths, titles and participants match whatever the Unicode form (NFC from most keyboards, NFD
// from macOS file names and some clients) and whatever the case, beyond ASCII (É/é, Ñ/ñ, Σ/σ).
import { describe, expect, it } from 'vitest';
import { listMeetings } from '../../src/db/queries/meetings.js';
import { ensureFolderPath, listFolders } from '../../src/db/queries/folders.js';
import { newId } from '../../src/db/ids.js';
import { testDbs } from '../support/db.js';
import { makeMeeting, makeParticipant } from '../support/factories.js';

const db = testDbs();
const page = { limit: 50, offset: 0 };
const nfd = (s: string) => s.normalize('NFD');
const nfc = (s: string) => s.normalize('NFC');

describe('folder_path', () => {
  it('finds a folder whatever the Unicode form and the case of the path passed', () => {
    const s = db();
    const id = makeMeeting(s, { title: 'Point hebdo', folderPath: 'Café/Réunion' });
    const found = (folder_path: string) => listMeetings(s, { folderPath: folder_path }, page).meetings.map((m) => m.id);
    expect(found(nfc('Café/Réunion'))).toEqual([id]);
    expect(found(nfd('Café/Réunion'))).toEqual([id]);
    expect(found('CAFÉ/RÉUNION')).toEqual([id]);
    expect(found(nfd('café/réunion'))).toEqual([id]);
    // Beyond Latin: Greek, with a final sigma.
    const greek = makeMeeting(s, { title: 'Synod', folderPath: 'Σύνοδος' });
    expect(found('ΣΎΝΟΔΟΣ')).toEqual([greek]);
  });

  it('stores paths in NFC, so the same name typed in NFD is the same folder', () => {
    const s = db();
    const a = ensureFolderPath(s, nfc('Café/Réunion'));
    const b = ensureFolderPath(s, nfd('Café/Réunion'));
    expect(b.id).toBe(a.id);
    expect(listFolders(s, {}, page).folders.map((f) => f.path)).toEqual([nfc('Café'), nfc('Café/Réunion')]);
  });

  it('finds a folder stored in NFD (an older writer) from an NFC path, and creates its children under it', () => {
    const s = db();
    const now = new Date().toISOString();
    const parent = newId('folder');
    s.prepare('INSERT INTO folders (id, path, name, parent_id, created_at) VALUES (?, ?, ?, NULL, ?)').run(parent, nfd('Café'), nfd('Café'), now);
    expect(ensureFolderPath(s, nfc('Café')).id).toBe(parent);
    const child = ensureFolderPath(s, nfc('Café/Réunion'));
    const id = makeMeeting(s, { title: 'In the child', folderPath: nfc('Café/Réunion') });
    // The subtree of the NFD parent holds the child created from an NFC path.
    expect(listMeetings(s, { folderPath: 'CAFÉ' }, page).meetings.map((m) => m.id)).toEqual([id]);
    expect(listFolders(s, {}, page).folders.map((f) => f.id)).toEqual([parent, child.id]);
  });
});

describe('list_folders query', () => {
  it('matches a fragment whatever its form and case', () => {
    const s = db();
    ensureFolderPath(s, 'Café/Réunion');
    ensureFolderPath(s, 'Other');
    const paths = (query: string) => listFolders(s, { query }, page).folders.map((f) => f.path);
    expect(paths('ÉUN')).toEqual([nfc('Café/Réunion')]);
    expect(paths(nfd('éun'))).toEqual([nfc('Café/Réunion')]);
    expect(paths('É')).toEqual([nfc('Café'), nfc('Café/Réunion')]);
    expect(paths('caf')).toEqual([nfc('Café'), nfc('Café/Réunion')]);
  });
});

describe('list_meetings query (title)', () => {
  it('matches titles stored in either form from a fragment in either form, in any case, short fragments too', () => {
    const s = db();
    const composed = makeMeeting(s, { title: nfc('Réunion équipe') });
    const decomposed = makeMeeting(s, { title: nfd('Résumé du trimestre') });
    makeMeeting(s, { title: 'Plain title' });
    const found = (query: string) => listMeetings(s, { query }, page).meetings.map((m) => m.id).sort();
    expect(found('RÉUNION')).toEqual([composed]);
    expect(found(nfd('réunion'))).toEqual([composed]);
    expect(found(nfc('RÉSUMÉ'))).toEqual([decomposed]);
    expect(found('É')).toEqual([composed, decomposed].sort());
    expect(found(nfd('É'))).toEqual([composed, decomposed].sort());
    expect(found('ÉQ')).toEqual([composed]);
    expect(listMeetings(s, { query: 'RÉSUMÉ' }, page).pagination.total).toBe(1);
  });
});

describe('participant filter', () => {
  it('matches names in either form and any case, short fragments too', () => {
    const s = db();
    const a = makeMeeting(s, { title: 'A' });
    const b = makeMeeting(s, { title: 'B' });
    makeParticipant(s, a, { name: nfc('José Núñez') });
    makeParticipant(s, b, { name: nfd('Ólafur Ørn') });
    const found = (participant: string) => listMeetings(s, { participant }, page).meetings.map((m) => m.id).sort();
    expect(found('NÚÑEZ')).toEqual([a]);
    expect(found(nfd('núñez'))).toEqual([a]);
    expect(found('ÓLAFUR')).toEqual([b]);
    expect(found('Ñ')).toEqual([a]);
    expect(found('ø')).toEqual([b]);
  });
});
