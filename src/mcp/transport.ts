import type { Readable, Writable } from 'node:stream';
import { type JSONRPCMessage, type MessageExtraInfo, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { MAX_MESSAGE_BYTES, StdinGuard } from './stdin-guard.js';

export interface PreparingStdioOptions {
  /** What must load before `method` can be served; undefined when nothing is left to load. */
  prepare(method: string): Promise<void> | undefined;
  onPrepareError(error: unknown): void;
  /** A line on stdin that was not one valid JSON-RPC message (already answered when it could be). */
  onRejected?(reason: string, line: string): void;
  stdin?: Readable;
  stdout?: Writable;
}

/**
 * stdio, holding back a request whose handlers are not loaded yet (and everything after it, to keep the
 * order) until `prepare` has loaded them. Start-up then costs what the SDK costs: a client's initialize
 * or discover probe is answered before Valibot, the schemas and the tool modules load. stdin goes
 * through a StdinGuard, so a malformed or oversized line gets an error and never ends the session.
 */
export class PreparingStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private held: [JSONRPCMessage, MessageExtraInfo | undefined][] | undefined;
  /** Loads the held messages wait for. */
  private loads = 0;
  private readonly inner: Transport;

  constructor(private readonly options: PreparingStdioOptions) {
    const stdin = options.stdin ?? process.stdin;
    const stdout = options.stdout ?? process.stdout;
    const guard = new StdinGuard(
      (response) => void this.inner.send(response).catch((error: unknown) => this.onerror?.(error as Error)),
      options.onRejected,
    );
    stdin.pipe(guard);
    // The guard passes one message per chunk, each within MAX_MESSAGE_BYTES: the SDK's buffer never overflows.
    this.inner = new StdioServerTransport(guard, stdout, { maxBufferSize: 2 * MAX_MESSAGE_BYTES });
  }

  start(): Promise<void> {
    this.inner.onmessage = (message, extra) => this.receive(message, extra);
    this.inner.onclose = () => this.onclose?.();
    this.inner.onerror = (error) => this.onerror?.(error);
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion = (version: string): void => this.inner.setProtocolVersion?.(version);

  private receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    // Every request asks for its part, also while others are held: a tools/call queued behind a
    // resources/list must not reach a server whose tools are not installed yet.
    const loading = 'method' in message && 'id' in message ? this.options.prepare(message.method) : undefined;
    if (!loading && !this.held) {
      this.onmessage?.(message, extra);
      return;
    }
    (this.held ??= []).push([message, extra]);
    if (!loading) return;
    this.loads++;
    loading.catch(this.options.onPrepareError).finally(() => {
      if (--this.loads > 0) return;
      const held = this.held ?? [];
      this.held = undefined;
      for (const [m, e] of held) this.onmessage?.(m, e);
    });
  }
}
