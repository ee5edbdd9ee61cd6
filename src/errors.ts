/**
 * The domain's one error family. Surfaces map it: src/mcp/errors.ts to JSON-RPC codes,
 * src/cli to exit codes. Messages are for the person or the model reading them: they name
 * the thing and say what to do next, and never carry SQL, stack traces or file contents.
 *
 * An error that a surface words its own way (tool names and parameters for the assistant, commands
 * and flags for the person) carries a `detail`: what went wrong, the IDs involved, what was found
 * instead. Its `message` is then a neutral default (logs, the worker, anything that does not word it).
 */
import { clip } from './text/clip.js';

export type ErrorKind =
  | 'not_found' // an id or path that does not exist -> MCP -32602, exit 2
  | 'invalid' // input that cannot be accepted -> MCP -32603, exit 1 (64 for CLI usage)
  | 'conflict' // valid input that clashes with the current state -> MCP -32603, exit 1
  | 'unavailable' // the app (worker) or a server is not there -> MCP -32603, exit 1
  | 'no_database' // read-only command, database missing -> exit 3
  | 'exists' // export target exists -> exit 4
  | 'storage' // database failure -> MCP -32603, exit 1
  | 'internal'; // a bug: safe message, details in the log -> MCP -32603, exit 1

/**
 * What a value passed where an ID was expected turned out to be, looked up by the Store: no ID at all
 * (a title, a name, an unknown prefix), or the ID of an existing thing of another kind, with the IDs that
 * lead to what the caller wanted. Absent when nothing useful can be said (an unknown ID of a known kind).
 */
export type WrongKind =
  | { is: 'text' }
  | { is: 'meeting'; seriesId: string | null; jobId: string | null }
  | { is: 'series' }
  | { is: 'folder'; path: string }
  | { is: 'summary' | 'proposal' | 'action_item' | 'participant' | 'transcript'; meetingId: string }
  | { is: 'job'; meetingId: string | null };

/** Something looked up by ID (a folder: by path) that does not exist. */
export type NotFound =
  | { what: 'meeting' | 'series' | 'proposal' | 'job'; id: string; hint?: WrongKind }
  /** A target_id that is no summary of `meetingId`; a hint `is: 'summary'` names the meeting it belongs to. */
  | { what: 'summary'; id: string; meetingId: string; hint?: WrongKind }
  | { what: 'folder'; id: string; hint?: Extract<WrongKind, { is: 'folder' }> };

/** Fields of a request that surfaces name differently (a parameter, a flag, an argument). */
export type Field = 'file_path' | 'request_key';

/** The structure of the errors that surfaces word themselves. */
export type ErrorDetail =
  | ({ type: 'not_found' } & NotFound)
  /** `<field> <problem>`: the problem is neutral text, the field named by each surface. */
  | { type: 'field'; field: Field; problem: string }
  /** An import's request key already used for another file, by job `jobId`. */
  | { type: 'key_reused'; key: string; filePath: string; jobId: string }
  /** No worker is running to process an import. */
  | { type: 'no_worker' }
  /** The same content was already imported, by a job that did not fail. */
  | { type: 'duplicate_import'; filePath: string; jobId: string; meetingId: string; title: string; status: string }
  /** A search query with no word in it. */
  | { type: 'no_search_word'; query: string };

export type NotFoundDetail = Extract<ErrorDetail, { type: 'not_found' }>;

const NOUN: Record<NotFound['what'], string> = { meeting: 'Meeting', series: 'Series', proposal: 'Proposal', job: 'Import job', summary: 'Summary', folder: 'Folder' };

/** A value shown in a message: its first `n` characters, then an ellipsis when longer. */
export function clipped(value: string, n = 120): string {
  return clip(value, n + 1);
}

/** A value quoted in a message, clipped. */
export function quoted(value: string, n = 120): string {
  return `"${clipped(value, n)}"`;
}

/** The first sentence of every wording of a not-found error: `Meeting "mtg_x" does not exist.` */
export function notFoundHead(d: NotFound): string {
  if (d.what === 'summary') return `Summary ${quoted(d.id)} does not exist on meeting ${clipped(d.meetingId)}.`;
  if (d.what === 'folder') return `Folder ${quoted(d.id, 200)} does not exist.`;
  return `${NOUN[d.what]} ${quoted(d.id)} does not exist.`;
}

const FIELD_NAME: Record<Field, string> = { file_path: 'The file path', request_key: 'The request key' };

const A_KIND: Record<Exclude<WrongKind['is'], 'text'>, string> = {
  meeting: 'a meeting',
  series: 'a series',
  folder: 'a folder',
  summary: 'a summary',
  proposal: 'a proposal',
  action_item: 'an action item',
  participant: 'a participant',
  transcript: 'a transcript',
  job: 'an import job',
};

/** The neutral default message of a detail: no tool, parameter, command or flag. */
function describe(d: ErrorDetail): string {
  switch (d.type) {
    case 'not_found': {
      const head = notFoundHead(d);
      if (!d.hint) return head;
      if (d.hint.is === 'text') return `${head} It is not ${A_KIND[d.what]} ID.`;
      if (d.what === 'summary' && d.hint.is === 'summary') return `${head} It is a summary of meeting "${d.hint.meetingId}".`;
      return `${head} It is ${A_KIND[d.hint.is]} ID.`;
    }
    case 'field':
      return `${FIELD_NAME[d.field]} ${d.problem}`;
    case 'key_reused':
      return `The request key ${quoted(d.key)} was already used for another file (${clipped(d.filePath)}, job ${d.jobId}).`;
    case 'no_worker':
      return 'The Syntheo app (worker) is not running, so nothing would process this recording.';
    case 'duplicate_import':
      return `The file ${quoted(d.filePath)} has the same content as an earlier import: meeting ${quoted(d.title)} (${d.meetingId}), job ${d.jobId}, ${d.status}. Nothing was queued.`;
    case 'no_search_word':
      return `The search ${quoted(d.query, 60)} has no word to search for.`;
  }
}

export class SyntheoError extends Error {
  override readonly name: string = 'SyntheoError';
  /** Set when the surfaces word this error from its structure (src/mcp/errors.ts, src/cli/errors.ts). */
  readonly detail?: ErrorDetail;
  constructor(
    readonly kind: ErrorKind,
    message: string | ErrorDetail,
    options?: { cause?: unknown },
  ) {
    super(typeof message === 'string' ? message : describe(message), options);
    if (typeof message !== 'string') this.detail = message;
  }
}

export class NotFoundError extends SyntheoError {
  override readonly name = 'NotFoundError';
  constructor(message: string | NotFound) {
    super('not_found', typeof message === 'string' ? message : { type: 'not_found', ...message });
  }
}

export class InvalidInputError extends SyntheoError {
  override readonly name = 'InvalidInputError';
  constructor(message: string | ErrorDetail) {
    super('invalid', message);
  }
}

export class ConflictError extends SyntheoError {
  override readonly name = 'ConflictError';
  constructor(message: string | ErrorDetail) {
    super('conflict', message);
  }
}

export class UnavailableError extends SyntheoError {
  override readonly name = 'UnavailableError';
  constructor(message: string | ErrorDetail) {
    super('unavailable', message);
  }
}

/** The same content (sha256) was already imported, by a job that did not fail. */
export class DuplicateImportError extends ConflictError {
  constructor(
    readonly existing: { jobId: string; meetingId: string; title: string; status: string },
    filePath: string,
  ) {
    super({ type: 'duplicate_import', filePath, ...existing });
  }
}

export class StorageError extends SyntheoError {
  override readonly name = 'StorageError';
  /** The database was out of reach (a server restarting): the same call may succeed in a moment. */
  readonly transient: boolean;
  constructor(message: string, options?: { cause?: unknown; transient?: boolean }) {
    super('storage', message, options);
    this.transient = options?.transient ?? false;
  }
}

export class NoDatabaseError extends SyntheoError {
  override readonly name = 'NoDatabaseError';
  constructor(readonly path: string) {
    super(
      'no_database',
      `No Syntheo database at ${path}. Create one with \`syntheo demo\` (sample data) or by starting \`syntheo mcp\` or \`syntheo-worker\`, or point to another one with --db or SYNTHEO_DB.`,
    );
  }
}

export function isSyntheoError(error: unknown): error is SyntheoError {
  return error instanceof SyntheoError;
}

/**
 * Turns an unexpected error into a SyntheoError whose message is safe to show. Engine errors arrive
 * here already mapped by the Store (src/db/sqlite/errors.ts); anything else is a bug.
 */
export function toSyntheoError(error: unknown): SyntheoError {
  if (error instanceof SyntheoError) return error;
  return new SyntheoError('internal', 'Unexpected internal error.', { cause: error });
}
