// The not-found errors of the ID parameters (meeting_id, series_id, proposal_id, job_id, target_id).
// An ID of another kind (a series ID passed as meeting_id, a title instead of an ID) is the usual
// mistake, and "does not exist" then reads as "no such meeting": the error says what the value is,
// looking the ID up (one indexed read) to name its meeting when it has one. The surfaces word it
// (src/mcp/errors.ts names the tool that takes it, src/cli/errors.ts the command).
import type { Sqlite } from '../open.js';
import { ID_PREFIXES, type IdKind } from '../ids.js';
import { stmt } from '../statements.js';
import { NotFoundError, type NotFound, type WrongKind } from '../../errors.js';
import { clip as clipText } from '../../text/clip.js';

/** The kinds an ID parameter expects. */
export type ExpectedKind = Exclude<NotFound['what'], 'folder'>;

/** `s` cut after `n` characters, with an ellipsis (src/text/clip.ts, never splitting a surrogate pair). */
export function clip(s: string, n = 120): string {
  return clipText(s, n + 1);
}

const KIND_BY_PREFIX = new Map<string, IdKind>(Object.entries(ID_PREFIXES).map(([kind, prefix]) => [prefix, kind as IdKind]));
const ID_SHAPE = /^([a-z]{3})_[0-9a-z_-]+$/i;

/** The kind an ID's prefix names, `other` for an ID-shaped value of no known kind, `text` for anything else (a title...). */
function kindOf(value: string): IdKind | 'other' | 'text' {
  const m = ID_SHAPE.exec(value);
  if (!m) return 'text';
  return KIND_BY_PREFIX.get(m[1]!.toLowerCase()) ?? 'other';
}

/** `expected` `id` does not exist, with what the value is when it is no ID or an ID of another kind. */
export function notFound(sqlite: Sqlite, expected: Exclude<ExpectedKind, 'summary'>, id: string): NotFoundError {
  const hint = wrongKindHint(sqlite, expected, id);
  return new NotFoundError({ what: expected, id, ...(hint && { hint }) });
}

type Row = Record<string, string | null>;
const one = (sqlite: Sqlite, sql: string, id: string): Row | undefined => stmt<Row>(sqlite, sql).get(id);

/** What `id` is, when it is not of the expected kind; undefined when nothing useful can be said. */
export function wrongKindHint(sqlite: Sqlite, expected: ExpectedKind, id: string): WrongKind | undefined {
  const kind = kindOf(id);
  if (kind === 'text' || kind === 'other') return { is: 'text' };
  if (kind === expected) return undefined;
  switch (kind) {
    case 'meeting': {
      const m = one(
        sqlite,
        'SELECT series_id, (SELECT j.id FROM recording_imports j WHERE j.meeting_id = meetings.id ORDER BY j.created_at DESC LIMIT 1) AS job_id FROM meetings WHERE id = ?',
        id,
      );
      return m ? { is: 'meeting', seriesId: m.series_id ?? null, jobId: m.job_id ?? null } : undefined;
    }
    case 'series':
      return one(sqlite, 'SELECT id FROM series WHERE id = ?', id) ? { is: 'series' } : undefined;
    case 'folder': {
      const f = one(sqlite, 'SELECT path FROM folders WHERE id = ?', id);
      return f ? { is: 'folder', path: f.path ?? '' } : undefined;
    }
    case 'job': {
      const j = one(sqlite, 'SELECT meeting_id FROM recording_imports WHERE id = ?', id);
      return j ? { is: 'job', meetingId: j.meeting_id ?? null } : undefined;
    }
    case 'summary':
    case 'proposal':
    case 'actionItem':
    case 'participant':
    case 'transcript': {
      const table = { summary: 'summaries', proposal: 'proposals', actionItem: 'action_items', participant: 'participants', transcript: 'transcripts' }[kind];
      const r = one(sqlite, `SELECT meeting_id FROM ${table} WHERE id = ?`, id);
      return r?.meeting_id ? { is: kind === 'actionItem' ? 'action_item' : kind, meetingId: r.meeting_id } : undefined;
    }
    default:
      return undefined;
  }
}
