/**
 * The domain's one error family. Surfaces map it: src/mcp/errors.ts to JSON-RPC codes,
 * src/cli to exit codes. Messages are for the person or the model reading them: they name
 * the thing and say what to do next, and never carry SQL, stack traces or file contents.
 */
export type ErrorKind =
  | 'not_found' // an id or path that does not exist -> MCP -32602, exit 2
  | 'invalid' // input that cannot be accepted -> MCP -32603, exit 1 (64 for CLI usage)
  | 'conflict' // valid input that clashes with the current state -> MCP -32603, exit 1
  | 'unavailable' // the app (worker) or a server is not there -> MCP -32603, exit 1
  | 'no_database' // read-only command, database missing -> exit 3
  | 'exists' // export target exists -> exit 4
  | 'storage' // database failure -> MCP -32603, exit 1
  | 'internal'; // a bug: safe message, details in the log -> MCP -32603, exit 1

export class SyntheoError extends Error {
  override readonly name: string = 'SyntheoError';
  constructor(
    readonly kind: ErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class NotFoundError extends SyntheoError {
  override readonly name = 'NotFoundError';
  constructor(message: string) {
    super('not_found', message);
  }
}

export class InvalidInputError extends SyntheoError {
  override readonly name = 'InvalidInputError';
  constructor(message: string) {
    super('invalid', message);
  }
}

export class ConflictError extends SyntheoError {
  override readonly name = 'ConflictError';
  constructor(message: string) {
    super('conflict', message);
  }
}

export class UnavailableError extends SyntheoError {
  override readonly name = 'UnavailableError';
  constructor(message: string) {
    super('unavailable', message);
  }
}

export class StorageError extends SyntheoError {
  override readonly name = 'StorageError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('storage', message, options);
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
