import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { SyntheoError, clipped, notFoundHead, quoted, toSyntheoError, type NotFoundDetail, type WrongKind } from '../errors.js';
import type { Logger } from '../log.js';

const MAX_MESSAGE = 1_000;

/**
 * The one mapping from the domain's errors to JSON-RPC, as the reference says: an ID or path that does
 * not exist is "invalid params" (-32602); validation failures, conflicts, the app being closed and
 * database failures are internal errors (-32603). Messages name the thing and say what to do next, in
 * the assistant's terms (mcpMessage); anything else gets a safe generic message, its details go to the log.
 */
export function toProtocolError(error: unknown, logger: Logger, where: string): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (!(error instanceof SyntheoError)) logger.error({ err: error, where }, 'unexpected error');
  const known = toSyntheoError(error);
  const code = known.kind === 'not_found' ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
  // Domain messages clip what they quote; this bounds any that does not.
  const worded = mcpMessage(known);
  const message = worded.length > MAX_MESSAGE ? `${worded.slice(0, MAX_MESSAGE)}…` : worded;
  return new ProtocolError(code, message, { kind: known.kind });
}

/** A parameter of the wrong type (the schema's part of validation): -32602. */
export function invalidParams(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}

/**
 * A domain error in the assistant's terms: the tools, parameters and resources that take the IDs it
 * names. The CLI words the same structure for a person (src/cli/errors.ts).
 */
export function mcpMessage(error: SyntheoError): string {
  const d = error.detail;
  if (!d) return error.message;
  switch (d.type) {
    case 'not_found':
      return `${notFoundHead(d)} ${notFoundNext(d)}`;
    case 'field':
      return `${d.field} ${d.problem}`;
    case 'key_reused':
      return `request_key ${quoted(d.key)} was already used for another file (${clipped(d.filePath)}, job ${d.jobId}). Use a new request_key for a different file, or the same file_path to get that job back.`;
    case 'no_worker':
      return 'The Syntheo app is not running, so nothing would process this recording. Start the worker with `syntheo-worker` (or `syntheo worker`), then call import_recording again with the same request_key.';
    case 'duplicate_import':
      return `The file ${quoted(d.filePath)} has the same content as an earlier import: meeting ${quoted(d.title)} (${d.meetingId}), job ${d.jobId}, ${d.status}. Nothing was queued. Use that meeting: pass meeting_id "${d.meetingId}" to get_meeting.`;
    case 'no_search_word':
      return `query ${quoted(d.query, 60)} has no word to search for. Pass one or more words that were said or written, for example query: "budget review"; to list meetings without searching, use list_meetings.`;
  }
}

/** After "X does not exist.": what the value is and which tool takes it, else where valid IDs are listed. */
function notFoundNext(d: NotFoundDetail): string {
  if (d.what === 'folder')
    return d.hint ? `"${d.id.trim()}" is a folder ID; folders are passed by path: pass folder_path ${quoted(d.hint.path, 200)}.` : 'Use list_folders to see the existing folder paths.';
  if (d.what === 'summary' && d.hint?.is === 'summary') return `It is a summary of meeting "${d.hint.meetingId}": pass that meeting_id with it.`;
  if (d.hint?.is === 'text') return notAnId(d.what, quoted(d.id));
  if (d.hint) return anotherKind(d.what, d.id, d.hint);
  switch (d.what) {
    case 'meeting':
      return 'Use list_meetings to find meeting IDs.';
    case 'series':
      return 'Use list_meetings (each meeting has a series_id) or get_recurring_meeting_history to find series IDs.';
    case 'proposal':
      return 'Use list_proposals to find proposal IDs.';
    case 'job':
      return 'Use the job_id returned by import_recording.';
    case 'summary':
      return "Use get_meeting to see the meeting's summaries and their IDs.";
  }
}

type Expected = Exclude<NotFoundDetail['what'], 'folder'>;

/** A value that is no ID at all, most often a title or a name. */
function notAnId(expected: Expected, shown: string): string {
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

/** The ID of an existing thing of another kind: where it goes. */
function anotherKind(expected: Expected, id: string, hint: Exclude<WrongKind, { is: 'text' }>): string {
  const shown = quoted(id);
  switch (hint.is) {
    case 'meeting':
      switch (expected) {
        case 'series':
          return `${shown} is a meeting ID: pass it as meeting_id to get_recurring_meeting_history for the meetings of its series${hint.seriesId ? ` (its series_id is "${hint.seriesId}")` : ' (it belongs to no series)'}.`;
        case 'proposal':
          return `${shown} is a meeting ID: pass it as meeting_id to list_proposals to see the proposals made on it.`;
        case 'job':
          return hint.jobId
            ? `${shown} is a meeting ID; its import job_id is "${hint.jobId}" (get_meeting shows it as recording_import).`
            : `${shown} is a meeting ID, and it was not imported from a recording: no import job belongs to it.`;
        default:
          return `${shown} is a meeting ID; target_id takes the ID of one of its summaries (sum_...): get_meeting lists them.`;
      }
    case 'series':
      return `${shown} is a series ID: pass it as series_id to list_meetings, or read the resource syntheo://series/${clipped(id)}.`;
    case 'summary':
      return `${shown} is a summary ID: pass it as target_id to propose_summary_edit, with meeting_id "${hint.meetingId}" (its meeting).`;
    case 'proposal':
      return `${shown} is a proposal ID: pass it as proposal_id to get_proposal or decline_proposal (it proposes an edit to meeting "${hint.meetingId}").`;
    case 'job':
      return `${shown} is an import job ID: pass it as job_id to get_recording_import${hint.meetingId ? ` (its meeting is "${hint.meetingId}")` : ''}.`;
    case 'folder':
      return `${shown} is a folder ID; folders are passed by path: pass folder_path ${quoted(hint.path)} to list_meetings.`;
    case 'action_item':
      return `${shown} is an action item ID; action items come with their meeting: pass meeting_id "${hint.meetingId}" to get_meeting.`;
    case 'participant':
      return `${shown} is a participant ID; participants come with their meeting: pass meeting_id "${hint.meetingId}" to get_meeting.`;
    case 'transcript':
      return `${shown} is a transcript ID: pass its meeting's ID "${hint.meetingId}" as meeting_id to get_meeting_transcript.`;
  }
}
