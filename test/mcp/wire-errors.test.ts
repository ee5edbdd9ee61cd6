import { describe, expect, it } from 'vitest';
import { MAX_ERROR_MESSAGE, boundErrorResponse, oneLine } from '../../src/mcp/wire-errors.js';

const response = (message: string, data?: unknown) => ({ jsonrpc: '2.0' as const, id: 1, error: { code: -32602, message, ...(data === undefined ? {} : { data }) } });

describe('error responses as they leave syntheo mcp', () => {
  it('read a validation dump of the SDK as one line of path: problem', () => {
    const dump = `Invalid tools/call request: ${JSON.stringify([{ expected: 'record', code: 'invalid_type', path: ['params', 'arguments'], message: 'Invalid input: expected record, received array' }], null, 2)}`;
    expect(boundErrorResponse(response(dump)).error.message).toBe('Invalid tools/call request: params.arguments: Invalid input: expected record, received array');
    const bare = JSON.stringify([{ path: ['params', 'cursor'], message: 'Invalid input: expected string, received number' }], null, 2);
    expect(oneLine(bare)).toBe('Invalid request: params.cursor: Invalid input: expected string, received number');
  });

  it('cut a long message in the middle, keeping its end, and put control characters on one line', () => {
    const long = `Resource URI ${'x'.repeat(2_000_000)} is invalid. Use syntheo://meetings/{meeting_id}.`;
    const bounded = boundErrorResponse(response(long)).error.message;
    expect(bounded.length).toBe(MAX_ERROR_MESSAGE);
    expect(bounded).toMatch(/^Resource URI x+…x+ is invalid\. Use syntheo:\/\/meetings\/\{meeting_id\}\.$/);
    expect(oneLine('first\nsecond\r\n\tthird\u2028fourth')).toBe('first second third fourth');
  });

  it('leave a message that fits untouched, and bound its data', () => {
    const ok = response('Meeting "mtg_x" does not exist. Use list_meetings to find meeting IDs.', { kind: 'not_found' });
    expect(boundErrorResponse(ok)).toBe(ok);
    const echoed = boundErrorResponse(response('Resource URI is invalid', { uri: 'y'.repeat(100_000), reason: 'invalid_uri' }));
    expect(echoed.error.data).toEqual({ uri: expect.stringMatching(/^y+…y+$/), reason: 'invalid_uri' });
    expect(JSON.stringify(echoed.error.data).length).toBeLessThan(200);
    expect(boundErrorResponse(response('x', { deep: { a: 'z'.repeat(10_000) } })).error).toEqual({ code: -32602, message: 'x' });
  });
});
