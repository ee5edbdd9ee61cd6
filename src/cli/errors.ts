// A domain error in the terms of the person at the terminal: the commands and flags that take the IDs
// it names. The MCP server words the same structure for the assistant (src/mcp/errors.ts); neither
// rewrites the other's text.
import { clipped, notFoundHead, quoted, type Field, type NotFoundDetail, type SyntheoError, type WrongKind } from '../errors.js';

const FLAG: Record<Field, string> = { file_path: 'FILE', request_key: '--key' };

const MEETINGS_LIST = '`syntheo meetings list`';
const MEETINGS_GET = '`syntheo meetings get`';
const PRINTED_JOB_ID = 'the job ID printed by `syntheo imports add` (see `syntheo imports list`)';

export function cliMessage(error: SyntheoError): string {
  const d = error.detail;
  if (!d) return error.message;
  switch (d.type) {
    case 'not_found':
      return `${notFoundHead(d)} ${notFoundNext(d)}`;
    case 'field':
      return `${FLAG[d.field]} ${d.problem}`;
    case 'key_reused':
      return `--key ${quoted(d.key)} was already used for another file (${clipped(d.filePath)}, job ${d.jobId}). Use a new --key for a different file, or the same FILE to get that job back.`;
    case 'no_worker':
      return 'The Syntheo app is not running, so nothing would process this recording. Start the worker with `syntheo-worker` (or `syntheo worker`), then run the same command again.';
    case 'duplicate_import':
      return `The file ${quoted(d.filePath)} has the same content as an earlier import: meeting ${quoted(d.title)} (${d.meetingId}), job ${d.jobId}, ${d.status}. Nothing was queued. Use that meeting (\`syntheo meetings get ${d.meetingId}\`); to import the same content again anyway, add --allow-duplicate.`;
    case 'no_search_word':
      return `query ${quoted(d.query, 60)} has no word to search for. Pass one or more words that were said or written, for example query: "budget review"; to list meetings without searching, use ${MEETINGS_LIST}.`;
  }
}

/** After "X does not exist.": what the value is and which command takes it, else where valid IDs are listed. */
function notFoundNext(d: NotFoundDetail): string {
  if (d.what === 'folder')
    return d.hint ? `"${d.id.trim()}" is a folder ID; folders are passed by path: pass folder_path ${quoted(d.hint.path, 200)}.` : 'Use `syntheo folders list` to see the existing folder paths.';
  if (d.what === 'summary' && d.hint?.is === 'summary') return `It is a summary of meeting "${d.hint.meetingId}": pass that meeting_id with it.`;
  if (d.hint?.is === 'text') return notAnId(d.what, quoted(d.id));
  if (d.hint) return anotherKind(d.what, d.id, d.hint);
  switch (d.what) {
    case 'meeting':
      return `Use ${MEETINGS_LIST} to find meeting IDs.`;
    case 'series':
      return `Use ${MEETINGS_LIST} (each meeting has a series_id) or \`syntheo meetings history\` to find series IDs.`;
    case 'proposal':
      return 'Use `syntheo proposals list` to find proposal IDs.';
    case 'job':
      return `Use ${PRINTED_JOB_ID}.`;
    case 'summary':
      return `Use ${MEETINGS_GET} to see the meeting's summaries and their IDs.`;
  }
}

type Expected = Exclude<NotFoundDetail['what'], 'folder'>;

/** A value that is no ID at all, most often a title or a name. */
function notAnId(expected: Expected, shown: string): string {
  switch (expected) {
    case 'meeting':
      return `${shown} is not a meeting ID (they look like mtg_...): to find a meeting by its title, pass a fragment of the title as query to ${MEETINGS_LIST}, then use the id it returns.`;
    case 'series':
      return `${shown} is not a series ID (they look like ser_...): ${MEETINGS_LIST} shows each meeting's series_id; a fragment of the title goes in its query.`;
    case 'proposal':
      return `${shown} is not a proposal ID (they look like prp_...): \`syntheo proposals list\` lists them.`;
    case 'job':
      return `${shown} is not an import job ID (they look like job_...): use ${PRINTED_JOB_ID}, or ${MEETINGS_GET}'s recording_import.`;
    case 'summary':
      return `${shown} is not a summary ID (they look like sum_...): ${MEETINGS_GET} lists a meeting's summaries and their IDs.`;
  }
}

/** The ID of an existing thing of another kind: where it goes. */
function anotherKind(expected: Expected, id: string, hint: Exclude<WrongKind, { is: 'text' }>): string {
  const shown = quoted(id);
  switch (hint.is) {
    case 'meeting':
      switch (expected) {
        case 'series':
          return `${shown} is a meeting ID: pass it as meeting_id to \`syntheo meetings history\` for the meetings of its series${hint.seriesId ? ` (its series_id is "${hint.seriesId}")` : ' (it belongs to no series)'}.`;
        case 'proposal':
          return `${shown} is a meeting ID: pass it as meeting_id to \`syntheo proposals list\` to see the proposals made on it.`;
        case 'job':
          return hint.jobId
            ? `${shown} is a meeting ID; its import job_id is "${hint.jobId}" (${MEETINGS_GET} shows it as recording_import).`
            : `${shown} is a meeting ID, and it was not imported from a recording: no import job belongs to it.`;
        default:
          return `${shown} is a meeting ID; target_id takes the ID of one of its summaries (sum_...): ${MEETINGS_GET} lists them.`;
      }
    case 'series':
      return `${shown} is a series ID: pass it as series_id to ${MEETINGS_LIST}, or read the resource syntheo://series/${clipped(id)}.`;
    case 'summary':
      return `${shown} is a summary ID: pass it as target_id to propose_summary_edit, with meeting_id "${hint.meetingId}" (its meeting).`;
    case 'proposal':
      return `${shown} is a proposal ID: pass it as proposal_id to get_proposal or decline_proposal (it proposes an edit to meeting "${hint.meetingId}").`;
    case 'job':
      return `${shown} is an import job ID: pass it as job_id to get_recording_import${hint.meetingId ? ` (its meeting is "${hint.meetingId}")` : ''}.`;
    case 'folder':
      return `${shown} is a folder ID; folders are passed by path: pass folder_path ${quoted(hint.path)} to ${MEETINGS_LIST}.`;
    case 'action_item':
      return `${shown} is an action item ID; action items come with their meeting: pass meeting_id "${hint.meetingId}" to ${MEETINGS_GET}.`;
    case 'participant':
      return `${shown} is a participant ID; participants come with their meeting: pass meeting_id "${hint.meetingId}" to ${MEETINGS_GET}.`;
    case 'transcript':
      return `${shown} is a transcript ID: pass its meeting's ID "${hint.meetingId}" as meeting_id to \`syntheo meetings transcript\`.`;
  }
}
