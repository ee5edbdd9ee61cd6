// Folder paths as people type them: pure rules, shared by the Store, the CLI and the MCP tools.
import { InvalidInputError } from '../../errors.js';
import { clip } from '../../text/clip.js';

export const MAX_FOLDER_DEPTH = 32;
export const MAX_FOLDER_NAME = 200;

/** Messages quote at most 60 characters of a path (and an ellipsis). */
const shown = (s: string) => clip(s, 61);

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
  if (segments.some((s) => s === '')) throw new InvalidInputError(`Folder path "${shown(path)}" has an empty segment ("//"). Use names separated by a single "/".`);
  if (segments.length > MAX_FOLDER_DEPTH) throw new InvalidInputError(`Folder path "${shown(path)}" is ${segments.length} levels deep; the limit is ${MAX_FOLDER_DEPTH}.`);
  for (const s of segments) {
    if (s.length > MAX_FOLDER_NAME) throw new InvalidInputError(`Folder name "${shown(s)}" is longer than ${MAX_FOLDER_NAME} characters.`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(s)) throw new InvalidInputError(`Folder name "${shown(s)}" contains a control character.`);
  }
  return segments.join('/');
}

/** `A`, `A/B`, `A/B/C` for `A/B/C`: a normalised path and its ancestors, outermost first. */
export function folderAncestry(path: string): string[] {
  const segments = path.split('/');
  return segments.map((_, i) => segments.slice(0, i + 1).join('/'));
}
