import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { SyntheoError, toSyntheoError } from '../errors.js';
import { wordError, type Words } from '../error-wording.js';
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

/** The assistant's words for a domain error: the tools and parameters that take the IDs it names. */
const MCP_WORDS: Words = {
  field: { file_path: 'file_path', request_key: 'request_key' },
  listMeetings: 'list_meetings',
  getMeeting: 'get_meeting',
  listFolders: 'list_folders',
  listProposals: 'list_proposals',
  seriesHistory: 'get_recurring_meeting_history',
  meetingTranscript: 'get_meeting_transcript',
  jobIdSource: 'the job_id returned by import_recording',
  retryImport: 'call import_recording again with the same request_key',
  duplicateNext: (meetingId) => `: pass meeting_id "${meetingId}" to get_meeting.`,
};

/** A domain error in the assistant's terms (the sentences are src/error-wording.ts's; the CLI gives its own words). */
export function mcpMessage(error: SyntheoError): string {
  return wordError(error, MCP_WORDS);
}
