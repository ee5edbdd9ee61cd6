// A structured domain error (src/errors.ts) put into words for one surface. The sentences are the same
// on every surface; what differs is how the reader reaches things: the assistant calls tools with
// parameters (src/mcp/errors.ts), the person runs commands with flags (src/cli/errors.ts). Each surface
// gives its words; neither rewrites the other's text.
import { clipped, notFoundHead, quoted, type Field, type NotFoundDetail, type SyntheoError, type WrongKind } from './errors.js';

export interface Words {
  /** How the reader passes each field: `request_key` / `--key`. */
  readonly field: Record<Field, string>;
  /** Where meetings are listed, found by title, and shown whole. */
  readonly listMeetings: string;
  readonly getMeeting: string;
  readonly listFolders: string;
  readonly listProposals: string;
  /** The meetings of a meeting's series. */
  readonly seriesHistory: string;
  /** A meeting's transcript, by meeting_id. */
  readonly meetingTranscript: string;
  /** Where an import's job ID comes from. */
  readonly jobIdSource: string;
  /** How to try the import again once the worker runs. */
  readonly retryImport: string;
  /** What to do with the earlier import of the same content (after "Use that meeting"). */
  duplicateNext(meetingId: string): string;
}

export function wordError(error: SyntheoError, w: Words): string {
  const d = error.detail;
  if (!d) return error.message;
  switch (d.type) {
    case 'not_found':
      return `${notFoundHead(d)} ${notFoundNext(d, w)}`;
    case 'field':
      return `${w.field[d.field]} ${d.problem}`;
    case 'key_reused':
      return `${w.field.request_key} ${quoted(d.key)} was already used for another file (${clipped(d.filePath)}, job ${d.jobId}). Use a new ${w.field.request_key} for a different file, or the same ${w.field.file_path} to get that job back.`;
    case 'no_worker':
      return `The Syntheo app is not running, so nothing would process this recording. Start the worker with \`syntheo-worker\` (or \`syntheo worker\`), then ${w.retryImport}.`;
    case 'duplicate_import':
      return `The file ${quoted(d.filePath)} has the same content as an earlier import: meeting ${quoted(d.title)} (${d.meetingId}), job ${d.jobId}, ${d.status}. Nothing was queued. Use that meeting${w.duplicateNext(d.meetingId)}`;
    case 'no_search_word':
      return `query ${quoted(d.query, 60)} has no word to search for. Pass one or more words that were said or written, for example query: "budget review"; to list meetings without searching, use ${w.listMeetings}.`;
  }
}

/** After "X does not exist.": what the value is and where it goes, else where valid IDs are listed. */
function notFoundNext(d: NotFoundDetail, w: Words): string {
  if (d.what === 'folder')
    return d.hint ? `"${d.id.trim()}" is a folder ID; folders are passed by path: pass folder_path ${quoted(d.hint.path, 200)}.` : `Use ${w.listFolders} to see the existing folder paths.`;
  if (d.what === 'summary' && d.hint?.is === 'summary') return `It is a summary of meeting "${d.hint.meetingId}": pass that meeting_id with it.`;
  if (d.hint?.is === 'text') return notAnId(d.what, quoted(d.id), w);
  if (d.hint) return anotherKind(d.what, d.id, d.hint, w);
  switch (d.what) {
    case 'meeting':
      return `Use ${w.listMeetings} to find meeting IDs.`;
    case 'series':
      return `Use ${w.listMeetings} (each meeting has a series_id) or ${w.seriesHistory} to find series IDs.`;
    case 'proposal':
      return `Use ${w.listProposals} to find proposal IDs.`;
    case 'job':
      return `Use ${w.jobIdSource}.`;
    case 'summary':
      return `Use ${w.getMeeting} to see the meeting's summaries and their IDs.`;
  }
}

type Expected = Exclude<NotFoundDetail['what'], 'folder'>;

/** A value that is no ID at all, most often a title or a name. */
function notAnId(expected: Expected, shown: string, w: Words): string {
  switch (expected) {
    case 'meeting':
      return `${shown} is not a meeting ID (they look like mtg_...): to find a meeting by its title, pass a fragment of the title as query to ${w.listMeetings}, then use the id it returns.`;
    case 'series':
      return `${shown} is not a series ID (they look like ser_...): ${w.listMeetings} shows each meeting's series_id; a fragment of the title goes in its query.`;
    case 'proposal':
      return `${shown} is not a proposal ID (they look like prp_...): ${w.listProposals} lists them.`;
    case 'job':
      return `${shown} is not an import job ID (they look like job_...): use ${w.jobIdSource}, or ${w.getMeeting}'s recording_import.`;
    case 'summary':
      return `${shown} is not a summary ID (they look like sum_...): ${w.getMeeting} lists a meeting's summaries and their IDs.`;
  }
}

/** The ID of an existing thing of another kind: where it goes. */
function anotherKind(expected: Expected, id: string, hint: Exclude<WrongKind, { is: 'text' }>, w: Words): string {
  const shown = quoted(id);
  switch (hint.is) {
    case 'meeting':
      switch (expected) {
        case 'series':
          return `${shown} is a meeting ID: pass it as meeting_id to ${w.seriesHistory} for the meetings of its series${hint.seriesId ? ` (its series_id is "${hint.seriesId}")` : ' (it belongs to no series)'}.`;
        case 'proposal':
          return `${shown} is a meeting ID: pass it as meeting_id to ${w.listProposals} to see the proposals made on it.`;
        case 'job':
          return hint.jobId
            ? `${shown} is a meeting ID; its import job_id is "${hint.jobId}" (${w.getMeeting} shows it as recording_import).`
            : `${shown} is a meeting ID, and it was not imported from a recording: no import job belongs to it.`;
        default:
          return `${shown} is a meeting ID; target_id takes the ID of one of its summaries (sum_...): ${w.getMeeting} lists them.`;
      }
    case 'series':
      return `${shown} is a series ID: pass it as series_id to ${w.listMeetings}, or read the resource syntheo://series/${clipped(id)}.`;
    case 'summary':
      return `${shown} is a summary ID: pass it as target_id to propose_summary_edit, with meeting_id "${hint.meetingId}" (its meeting).`;
    case 'proposal':
      return `${shown} is a proposal ID: pass it as proposal_id to get_proposal or decline_proposal (it proposes an edit to meeting "${hint.meetingId}").`;
    case 'job':
      return `${shown} is an import job ID: pass it as job_id to get_recording_import${hint.meetingId ? ` (its meeting is "${hint.meetingId}")` : ''}.`;
    case 'folder':
      return `${shown} is a folder ID; folders are passed by path: pass folder_path ${quoted(hint.path)} to ${w.listMeetings}.`;
    case 'action_item':
      return `${shown} is an action item ID; action items come with their meeting: pass meeting_id "${hint.meetingId}" to ${w.getMeeting}.`;
    case 'participant':
      return `${shown} is a participant ID; participants come with their meeting: pass meeting_id "${hint.meetingId}" to ${w.getMeeting}.`;
    case 'transcript':
      return `${shown} is a transcript ID: pass its meeting's ID "${hint.meetingId}" as meeting_id to ${w.meetingTranscript}.`;
  }
}
