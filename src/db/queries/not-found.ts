// The not-found errors of the ID parameters (meeting_id, series_id, proposal_id, job_id, target_id).
// An ID of another kind (a series ID passed as meeting_id, a title instead of an ID) is the usual
// mistake, and "does not exist" then reads as "no such meeting": the message says what the value is
// and which tool takes it, looking the ID up (one indexed read) to name its meeting when it has one.
import type { Sqlite } from '../open.js';
import { ID_PREFIXES, type IdKind } from '../ids.js';
import { stmt } from '../statements.js';
import { NotFoundError } from '../../errors.js';
import { clip as clipText } from '../../text/clip.js';

/** The kinds an ID parameter expects. */
export type ExpectedKind = 'meeting' | 'series' | 'proposal' | 'job' | 'summary';

const NOUN: Record<ExpectedKind, string> = { meeting: 'Meeting', series: 'Series', proposal: 'Proposal', job: 'Import job', summary: 'Summary' };

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

/**
 * `<Noun> "<id>" does not exist.` followed by what the value is and where it goes when it is an ID of
 * another kind, else by `fallback` (the tool that lists valid IDs).
 */
export function notFound(sqlite: Sqlite | undefined, expected: ExpectedKind, id: string, fallback: string): NotFoundError {
  const hint = sqlite ? wrongKindHint(sqlite, expected, id) : undefined;
  return new NotFoundError(`${NOUN[expected]} "${clip(id)}" does not exist. ${hint ?? fallback}`);
}

type Row = Record<string, string | null>;
const one = (sqlite: Sqlite, sql: string, id: string): Row | undefined => stmt<Row>(sqlite, sql).get(id);

/** What `id` is and which tool takes it, when it is not of the expected kind; undefined when nothing useful can be said. */
export function wrongKindHint(sqlite: Sqlite, expected: ExpectedKind, id: string): string | undefined {
  const kind = kindOf(id);
  const shown = `"${clip(id)}"`;
  if (kind === 'text' || kind === 'other') return textHint(expected, shown);
  if (kind === expected) return undefined;
  switch (kind) {
    case 'meeting': {
      const m = one(sqlite, 'SELECT series_id FROM meetings WHERE id = ?', id);
      if (!m) return undefined;
      switch (expected) {
        case 'series':
          return `${shown} is a meeting ID: pass it as meeting_id to get_recurring_meeting_history for the meetings of its series${m.series_id ? ` (its series_id is "${m.series_id}")` : ' (it belongs to no series)'}.`;
        case 'proposal':
          return `${shown} is a meeting ID: pass it as meeting_id to list_proposals to see the proposals made on it.`;
        case 'job': {
          const job = one(sqlite, 'SELECT id FROM recording_imports WHERE meeting_id = ? ORDER BY created_at DESC LIMIT 1', id);
          return job
            ? `${shown} is a meeting ID; its import job_id is "${job.id}" (get_meeting shows it as recording_import).`
            : `${shown} is a meeting ID, and it was not imported from a recording: no import job belongs to it.`;
        }
        default:
          return `${shown} is a meeting ID; target_id takes the ID of one of its summaries (sum_...): get_meeting lists them.`;
      }
    }
    case 'series':
      return one(sqlite, 'SELECT id FROM series WHERE id = ?', id)
        ? `${shown} is a series ID: pass it as series_id to list_meetings, or read the resource syntheo://series/${clip(id)}.`
        : undefined;
    case 'summary': {
      const s = one(sqlite, 'SELECT meeting_id FROM summaries WHERE id = ?', id);
      return s ? `${shown} is a summary ID: pass it as target_id to propose_summary_edit, with meeting_id "${s.meeting_id}" (its meeting).` : undefined;
    }
    case 'proposal': {
      const p = one(sqlite, 'SELECT meeting_id FROM proposals WHERE id = ?', id);
      return p ? `${shown} is a proposal ID: pass it as proposal_id to get_proposal or decline_proposal (it proposes an edit to meeting "${p.meeting_id}").` : undefined;
    }
    case 'job': {
      const j = one(sqlite, 'SELECT meeting_id FROM recording_imports WHERE id = ?', id);
      return j ? `${shown} is an import job ID: pass it as job_id to get_recording_import${j.meeting_id ? ` (its meeting is "${j.meeting_id}")` : ''}.` : undefined;
    }
    case 'folder': {
      const f = one(sqlite, 'SELECT path FROM folders WHERE id = ?', id);
      return f ? `${shown} is a folder ID; folders are passed by path: pass folder_path "${clip(f.path ?? '')}" to list_meetings.` : undefined;
    }
    case 'actionItem': {
      const a = one(sqlite, 'SELECT meeting_id FROM action_items WHERE id = ?', id);
      return a ? `${shown} is an action item ID; action items come with their meeting: pass meeting_id "${a.meeting_id}" to get_meeting.` : undefined;
    }
    case 'participant': {
      const p = one(sqlite, 'SELECT meeting_id FROM participants WHERE id = ?', id);
      return p ? `${shown} is a participant ID; participants come with their meeting: pass meeting_id "${p.meeting_id}" to get_meeting.` : undefined;
    }
    case 'transcript': {
      const t = one(sqlite, 'SELECT meeting_id FROM transcripts WHERE id = ?', id);
      return t ? `${shown} is a transcript ID: pass its meeting's ID "${t.meeting_id}" as meeting_id to get_meeting_transcript.` : undefined;
    }
    default:
      return undefined;
  }
}

/** A value that is no ID at all, most often a title or a name. */
export function textHint(expected: ExpectedKind, shown: string): string {
  switch (expected) {
    case 'meeting':
      return `${shown} is not a meeting ID (they look like mtg_...): to find a meeting by its title, pass a fragment of the title as query to list_meetings, then use the id it returns.`;
    case 'series':
      return `${shown} is not a series ID (they look like ser_...): list_meetings shows each meeting's series_id; a fragment of the title goes in its query.`;
    case 'proposal':
      return `${shown} is not a proposal ID (they look like prp_...): list_proposals lists them.`;
    case 'job':
      return `${shown} is not an import job ID (they look like job_...): use the job_id returned by import_recording, or get_meeting's recording_import.`;
    case 'summary':
      return `${shown} is not a summary ID (they look like sum_...): get_meeting lists a meeting's summaries and their IDs.`;
  }
}
