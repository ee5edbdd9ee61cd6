import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { SyntheoError, toSyntheoError } from '../errors.js';
import type { Logger } from '../log.js';

const MAX_MESSAGE = 1_000;

/**
 * The one mapping from the domain's errors to JSON-RPC, as the reference says: an ID or path that does
 * not exist is "invalid params" (-32602); validation failures, conflicts, the app being closed and
 * database failures are internal errors (-32603). Messages are the domain's own (they name the thing
 * and say what to do next); anything else gets a safe generic message, its details go to the log.
 */
export function toProtocolError(error: unknown, logger: Logger, where: string): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (!(error instanceof SyntheoError)) logger.error({ err: error, where }, 'unexpected error');
  const known = toSyntheoError(error);
  const code = known.kind === 'not_found' ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError;
  // Domain messages clip what they quote; this bounds any that does not.
  const message = known.message.length > MAX_MESSAGE ? `${known.message.slice(0, MAX_MESSAGE)}…` : known.message;
  return new ProtocolError(code, message, { kind: known.kind });
}

/** A parameter of the wrong type (the schema's part of validation): -32602. */
export function invalidParams(message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, message);
}
