import type { Sqlite } from '../open.js';
import { clip } from './not-found.js';
import { immediate, likeFragment, matchFragment, stmt } from '../statements.js';
import { newId } from '../ids.js';
import { nowIso } from '../time.js';
import { InvalidInputError, NotFoundError } from '../../errors.js';
import { pagination } from './pagination.js';
import { caselessGlob, isAscii, unicodeForms } from './unicode.js';
import type { Folder, Page, Pagination } from './types.js';

export const MAX_FOLDER_DEPTH = 32;
export const MAX_FOLDER_NAME = 200;

/**
 * Canonical form of a folder path: segments trimmed, joined by `/`, no empty segment.
 * `" Projets / Lancement/ "` -> `Projets/Lancement`.
 */
export function normalizeFolderPath(path: string): string {
  // NFC: `Café` typed on macOS (NFD) and elsewhere (NFC) is one folder.
  const segments = path.normalize('NFC').split('/').map((s) => s.trim());
  while (segments.length > 0 && segments.at(-1) === '') segments.pop();
  while (segments.length > 0 && segments[0] === '') segments.shift();
  if (segments.length === 0) throw new InvalidInputError('A folder path cannot be empty. Use names separated by "/", for example Projets/Lancement.');
  if (segments.some((s) => s === '')) throw new InvalidInputError(`Folder path "${clip(path, 60)}" has an empty segment ("//"). Use names separated by a single "/".`);
  if (segments.length > MAX_FOLDER_DEPTH) throw new InvalidInputError(`Folder path "${clip(path, 60)}" is ${segments.length} levels deep; the limit is ${MAX_FOLDER_DEPTH}.`);
  for (const s of segments) {
    if (s.length > MAX_FOLDER_NAME) throw new InvalidInputError(`Folder name "${clip(s, 60)}" is longer than ${MAX_FOLDER_NAME} characters.`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(s)) throw new InvalidInputError(`Folder name "${clip(s, 60)}" contains a control character.`);
  }
  return segments.join('/');
}

export function parentPath(path: string): string | null {
  const i = path.lastIndexOf('/');
  return i < 0 ? null : path.slice(0, i);
}

export interface FolderRef {
  id: string;
  path: string;
}

/**
 * Finds a folder by the path list_folders returned. Exact match first (in either Unicode form: an
 * older writer may have stored NFD); else a case-insensitive match, beyond ASCII, when it is
 * unambiguous, since people and models often get the case wrong.
 */
export function getFolderByPathOrThrow(sqlite: Sqlite, path: string, tool = 'list_folders'): FolderRef {
  let normalized: string;
  try {
    normalized = normalizeFolderPath(path);
  } catch {
    throw folderNotFound(sqlite, path, tool);
  }
  const exact = findExact(sqlite, normalized);
  if (exact) return exact;
  const [nfc, nfd] = unicodeForms(normalized);
  const loose = isAscii(normalized)
    ? stmt<FolderRef>(sqlite, 'SELECT id, path FROM folders WHERE path = ? COLLATE NOCASE LIMIT 2').all(normalized)
    : stmt<FolderRef>(sqlite, 'SELECT id, path FROM folders WHERE path GLOB ? OR path GLOB ? LIMIT 2').all(caselessGlob(nfc, false), caselessGlob(nfd, false));
  if (loose.length === 1) return loose[0]!;
  throw folderNotFound(sqlite, path, tool);
}

function folderNotFound(sqlite: Sqlite, path: string, tool: string): NotFoundError {
  // A folder ID where its path is expected: name the path to pass.
  const byId = /^fld_[0-9a-z]+$/i.test(path.trim()) ? stmt<{ path: string }>(sqlite, 'SELECT path FROM folders WHERE id = ?').get(path.trim()) : undefined;
  const hint = byId ? `"${path.trim()}" is a folder ID; folders are passed by path: pass folder_path "${clip(byId.path, 200)}".` : `Use ${tool} to see the existing folder paths.`;
  return new NotFoundError(`Folder "${clip(path, 200)}" does not exist. ${hint}`);
}

/** The folder at exactly this path, stored in NFC or in NFD. */
function findExact(sqlite: Sqlite, path: string): FolderRef | undefined {
  const [nfc, nfd] = unicodeForms(path);
  return stmt<FolderRef>(sqlite, 'SELECT id, path FROM folders WHERE path = ?').get(nfc) ?? (nfd === nfc ? undefined : stmt<FolderRef>(sqlite, 'SELECT id, path FROM folders WHERE path = ?').get(nfd));
}

/**
 * Creates the folder and its missing parents; returns the deepest one. Safe against concurrent creators.
 * A child's path extends its parent's stored path, so it stays in the parent's subtree range.
 */
export function ensureFolderPath(sqlite: Sqlite, path: string): FolderRef {
  const normalized = normalizeFolderPath(path);
  return immediate(sqlite, () => {
    let parent: FolderRef | undefined;
    for (const name of normalized.split('/')) {
      const current = parent ? `${parent.path}/${name}` : name;
      let ref = findExact(sqlite, current);
      if (!ref) {
        stmt(sqlite, 'INSERT OR IGNORE INTO folders (id, path, name, parent_id, created_at) VALUES (?, ?, ?, ?, ?)').run(newId('folder'), current, name, parent?.id ?? null, nowIso());
        ref = stmt<FolderRef>(sqlite, 'SELECT id, path FROM folders WHERE path = ?').get(current)!;
      }
      parent = ref;
    }
    return parent!;
  });
}

/**
 * Subtree condition on a folder path column: the folder itself or any descendant.
 * `path > 'A/' AND path < 'A0'` is a range on the unique index ('0' follows '/').
 */
export function subtreeBounds(path: string): [string, string, string] {
  return [path, `${path}/`, `${path}0`];
}

export interface FolderFilter {
  query?: string;
}

const FOLDER_COLUMNS = 'f.id, f.path, f.name, f.meeting_count';

// Tree order: a folder is followed by its children ("/" sorts before any character), case-insensitively.
const TREE_ORDER = `ORDER BY lower(replace(f.path, '/', char(1))), f.path`;

export function listFolders(sqlite: Sqlite, filter: FolderFilter, page: Page): { folders: Folder[]; pagination: Pagination } {
  const fragment = filter.query !== undefined && filter.query !== '' ? matchFragment(filter.query, 'query') : null;
  let where = '';
  let params: string[] = [];
  if (fragment !== null && isAscii(fragment)) {
    where = `WHERE f.path LIKE ? ESCAPE '\\'`;
    params = [likeFragment(fragment)];
  } else if (fragment !== null) {
    // LIKE folds ASCII only: each letter's cases as a GLOB class, in both Unicode forms.
    where = 'WHERE f.path GLOB ? OR f.path GLOB ?';
    params = unicodeForms(fragment).map((form) => caselessGlob(form, true));
  }
  const rows = stmt<Omit<Folder, 'parent_path'>>(sqlite, `SELECT ${FOLDER_COLUMNS} FROM folders f ${where} ${TREE_ORDER} LIMIT ? OFFSET ?`).all(
    ...params,
    page.limit,
    page.offset,
  );
  const total = (stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM folders f ${where}`).get(...params) as { n: number }).n;
  const folders = rows.map((r) => ({ ...r, parent_path: parentPath(r.path) }));
  return { folders, pagination: pagination(page, folders.length, total) };
}
