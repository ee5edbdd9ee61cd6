import { Transform, type TransformCallback } from 'node:stream';
import { parseJSONRPCMessage, type JSONRPCErrorResponse, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/server';

/** Longest line (one JSON-RPC message) accepted on stdin: the SDK's own limit. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** What the guard passes on, in the order of the lines: a message to serve, or the error that answers a bad line. */
export type GuardOutput = { message: JSONRPCMessage } | { reply: JSONRPCErrorResponse };

/**
 * Turns the bytes of stdin into parsed JSON-RPC messages, one per line (object mode: its reader pulls
 * them one at a time, so back-pressure reaches stdin). Left to itself the SDK drops a non-JSON line or
 * an invalid request without an answer (the client waits forever), and closes the whole connection on
 * a line over 10 MiB (the process exits). Here each of those yields the JSON-RPC error it deserves, in
 * line order, and the next line is read as usual: -32700 for a line that is not JSON, -32600 for a
 * batch, an invalid message (with its id when it has a valid one) or a line over the limit. A last
 * line without its newline is still read at end of input.
 */
export class StdinGuard extends Transform {
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside a line over the limit: dropped up to its newline. */
  private skipping = false;

  constructor(private readonly onRejected: (reason: string, line: string) => void = () => {}) {
    super({ readableObjectMode: true });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.append(chunk.subarray(start, nl));
      this.endLine();
      start = nl + 1;
    }
    this.append(chunk.subarray(start));
    done();
  }

  override _flush(done: TransformCallback): void {
    if (this.skipping || this.size > 0) this.endLine();
    done();
  }

  private append(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    if (this.size + part.length > MAX_MESSAGE_BYTES) {
      this.parts = [];
      this.size = 0;
      this.skipping = true;
      return;
    }
    this.parts.push(part);
    this.size += part.length;
  }

  private endLine(): void {
    if (this.skipping) {
      this.skipping = false;
      this.reject(undefined, -32600, `Invalid Request: a message larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB was dropped. Send smaller messages.`, '(oversized line)');
      return;
    }
    const line = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    const text = line.toString('utf8');
    if (text.trim() === '') return;
    let value: unknown;
    let message: JSONRPCMessage;
    try {
      value = JSON.parse(text);
    } catch {
      this.reject(undefined, -32700, 'Parse error: the line is not JSON. Send one JSON-RPC message per line.', text);
      return;
    }
    if (Array.isArray(value)) {
      this.reject(undefined, -32600, 'Invalid Request: JSON-RPC batches are not supported (MCP removed them); send one message per line.', text);
      return;
    }
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      const fields = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
      // An invalid response is not answered: there is no request of ours to tie an error to.
      if ('result' in fields || ('error' in fields && !('method' in fields))) {
        this.onRejected('invalid response', text);
        return;
      }
      this.reject(
        validId(fields.id),
        -32600,
        'Invalid Request: expected {"jsonrpc": "2.0", "id": a string or an integer, "method": a string, "params": an object (optional)}.',
        text,
      );
      return;
    }
    this.push({ message } satisfies GuardOutput);
  }

  private reject(id: RequestId | undefined, code: number, message: string, line: string): void {
    this.onRejected(message, line);
    this.push({ reply: { jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code, message } } } satisfies GuardOutput);
  }
}

function validId(id: unknown): RequestId | undefined {
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return id;
  return undefined;
}
