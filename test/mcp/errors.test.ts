// The one mapping from domain errors to JSON-RPC codes, and what never reaches a client.
import { describe, expect, it } from 'vitest';
import { ConflictError, InvalidInputError, NotFoundError, StorageError, UnavailableError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { toProtocolError } from '../../src/mcp/errors.js';
import { sqliteError } from '../../src/db/sqlite/errors.js';
import { toStorageError } from '../../src/db/postgres/errors.js';

const logger = createLogger('silent');
const map = (error: unknown) => {
  const e = toProtocolError(error, logger, 'test');
  return { code: e.code, message: e.message, data: e.data };
};

describe('toProtocolError', () => {
  it('maps not found to -32602 and every other domain error to -32603, keeping the message', () => {
    expect(map(new NotFoundError('Meeting "x" does not exist. Use list_meetings to find meeting IDs.'))).toEqual({
      code: -32602,
      message: 'Meeting "x" does not exist. Use list_meetings to find meeting IDs.',
      data: { kind: 'not_found' },
    });
    for (const [error, kind] of [
      [new InvalidInputError('content is empty.'), 'invalid'],
      [new ConflictError('already declined'), 'conflict'],
      [new UnavailableError('Start syntheo-worker'), 'unavailable'],
      [new StorageError('disk full'), 'storage'],
    ] as const)
      expect(map(error)).toEqual({ code: -32603, message: error.message, data: { kind } });
  });

  it('words a structured error in the assistant\'s terms', () => {
    expect(map(new NotFoundError({ what: 'proposal', id: 'prp_x' }))).toEqual({ code: -32602, message: 'Proposal "prp_x" does not exist. Use list_proposals to find proposal IDs.', data: { kind: 'not_found' } });
    expect(map(new InvalidInputError({ type: 'field', field: 'request_key', problem: 'must be 1 to 200 bytes long (UTF-8); got 0 bytes.' }))).toEqual({
      code: -32603,
      message: 'request_key must be 1 to 200 bytes long (UTF-8); got 0 bytes.',
      data: { kind: 'invalid' },
    });
  });

  it('never passes on SQL, paths or stack traces from unexpected errors', () => {
    // Engine errors reach the MCP layer through the Store, which maps them (src/db/sqlite/errors.ts).
    const sqlite = Object.assign(new Error('UNIQUE constraint failed: recording_imports.request_key'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    expect(map(sqliteError(sqlite))).toEqual({ code: -32603, message: 'The database reported an error (SQLITE_CONSTRAINT_UNIQUE).', data: { kind: 'storage' } });
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    expect(map(sqliteError(busy)).message).toMatch(/busy .*Try again/);
    // One that did not come through the Store is a bug: nothing of it reaches the client.
    expect(map(sqlite)).toEqual({ code: -32603, message: 'Unexpected internal error.', data: { kind: 'internal' } });
    const bug = new TypeError("Cannot read properties of undefined (reading 'x') at /home/me/secret/file.ts:12");
    expect(map(bug)).toEqual({ code: -32603, message: 'Unexpected internal error.', data: { kind: 'internal' } });
    expect(map('a thrown string')).toMatchObject({ code: -32603, message: 'Unexpected internal error.' });
  });

  it('words an engine failure the same on both engines where the failure is the same', () => {
    const url = 'postgresql://app@db.internal/syntheo';
    const sqliteMissing = Object.assign(new Error('no such table: summaries'), { code: 'SQLITE_ERROR' });
    const expected = map(sqliteError(sqliteMissing));
    expect(expected.message).toBe('The database lacks part of the schema Syntheo needs. Run `syntheo doctor` to see what is missing and how to repair it.');
    for (const code of ['42P01', '42703']) expect(map(toStorageError(url, Object.assign(new Error('relation "summaries" does not exist'), { code }))), code).toEqual(expected);
  });
});
