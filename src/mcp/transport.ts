import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage, MessageExtraInfo, RequestId, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { boundErrorResponse } from './wire-errors.js';
import { StdinGuard, type GuardOutput } from './stdin-guard.js';

/** Requests read and not answered yet, at most: stdin is not read further until one is answered. */
export const MAX_IN_FLIGHT = 16;
/** After end of input, how long the requests still running may take to be answered and written. */
export const DRAIN_AT_EOF_MS = 30_000;

export interface PreparingStdioOptions {
  /** What must load before `method` can be served; undefined when nothing is left to load. */
  prepare(method: string): Promise<void> | undefined;
  onPrepareError(error: unknown): void;
  /** A line on stdin that was not one valid JSON-RPC message (already answered when it could be). */
  onRejected?(reason: string, line: string): void;
  /** End of input came and requests were still unanswered after DRAIN_AT_EOF_MS. */
  onDrainTimeout?(unanswered: number): void;
  stdin?: Readable;
  stdout?: Writable;
  maxInFlight?: number;
  drainAtEofMs?: number;
}

type Received = [JSONRPCMessage, MessageExtraInfo | undefined];

/**
 * The stdio wire of `syntheo mcp`. Three promises to the client:
 * - Bounded memory: a request is read only while fewer than MAX_IN_FLIGHT are unanswered and stdout
 *   can take more (no pending 'drain'); otherwise stdin stays unread and the pipe pushes back on the
 *   client. A client that writes without reading gets a server of constant size, not one that
 *   buffers every answer.
 * - No loss at end of input: every request read before EOF is executed and answered, and written,
 *   before the transport closes (bounded by DRAIN_AT_EOF_MS).
 * - Cancellation is deterministic: a request cancelled before it reached the server (held while the
 *   tools load, or queued) is dropped, neither executed nor answered; one already handed to the server
 *   runs to its end and is answered. A proposal therefore never exists without its answer.
 * It also holds back a request whose handlers are not loaded yet (and everything after it, to keep the
 * order) until `prepare` has loaded them: a client's initialize or discover probe is answered before
 * Valibot, the schemas and the tool modules load. Every error response leaves as one bounded line.
 */
export class PreparingStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  /** Resolves once the transport has closed: input ended and everything was answered, or stdout failed. */
  readonly closed: Promise<void>;

  private readonly stdin: Readable;
  private readonly stdout: Writable;
  private readonly guard: StdinGuard;
  private readonly maxInFlight: number;
  /** Requests read and not answered yet (a count per id: a client may reuse one). */
  private readonly unanswered = new Map<RequestId, number>();
  private unansweredCount = 0;
  /** Messages waiting for `prepare`, in order; undefined when nothing is held. */
  private held: Received[] | undefined;
  private loads = 0;
  private started = false;
  private isClosed = false;
  private inputEnded = false;
  private pulling = false;
  private drainTimer: NodeJS.Timeout | undefined;
  /** Writes are flushed in order: once this one is, everything written before it is too. */
  private lastWrite: Promise<void> = Promise.resolve();
  private resolveClosed!: () => void;

  constructor(private readonly options: PreparingStdioOptions) {
    this.stdin = options.stdin ?? process.stdin;
    this.stdout = options.stdout ?? process.stdout;
    this.maxInFlight = options.maxInFlight ?? MAX_IN_FLIGHT;
    this.guard = new StdinGuard(options.onRejected);
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  start(): Promise<void> {
    if (this.started) throw new Error('PreparingStdioTransport already started');
    this.started = true;
    this.stdin.on('error', this.onStdinError);
    // A stdin closed without an end (destroyed) is an end of input too.
    this.stdin.once('close', this.endGuard);
    this.stdin.pipe(this.guard);
    this.guard.on('readable', this.pull);
    this.guard.once('end', this.onInputEnd);
    this.stdout.on('drain', this.pull);
    this.stdout.on('error', this.onStdoutError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (this.isClosed) return Promise.reject(new Error('The stdio transport is closed'));
    if ('id' in message && message.id !== undefined && ('result' in message || 'error' in message)) {
      const write = this.write('error' in message ? boundErrorResponse(message) : message);
      this.answered(message.id);
      return write;
    }
    return this.write(message);
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    clearTimeout(this.drainTimer);
    this.stdin.unpipe(this.guard);
    this.stdin.off('error', this.onStdinError);
    this.stdin.off('close', this.endGuard);
    this.stdin.pause();
    this.guard.off('readable', this.pull);
    this.guard.off('end', this.onInputEnd);
    this.stdout.off('drain', this.pull);
    // Late write failures (the client went away) must not become uncaught 'error' events.
    this.stdout.off('error', this.onStdoutError);
    this.stdout.on('error', () => {});
    this.held = undefined;
    this.resolveClosed();
    this.onclose?.();
  }

  /** Reads messages while there is room: fewer than maxInFlight unanswered, stdout not waiting to drain. */
  private readonly pull = (): void => {
    if (this.pulling) return;
    this.pulling = true;
    try {
      while (!this.isClosed && this.unansweredCount < this.maxInFlight && !this.stdout.writableNeedDrain) {
        const item = this.guard.read() as GuardOutput | null;
        if (item === null) break;
        if ('reply' in item) void this.write(item.reply).catch(() => {});
        else this.receive(item.message);
      }
    } finally {
      this.pulling = false;
    }
  };

  private receive(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message) {
      // subscriptions/listen is answered by notifications for as long as it lasts, never by a response.
      if (message.method !== 'subscriptions/listen') this.track(message.id, +1);
    } else if ('method' in message && message.method === 'notifications/cancelled' && this.cancel(message)) return;
    this.deliver(message, undefined);
  }

  /** True when the cancellation was handled here and must not reach the server (see the class comment). */
  private cancel(message: JSONRPCMessage): boolean {
    const id = ((message as { params?: { requestId?: unknown } }).params ?? {}).requestId;
    if ((typeof id !== 'string' && typeof id !== 'number') || !this.unanswered.has(id)) return false;
    const at = this.held?.findIndex(([m]) => 'id' in m && 'method' in m && m.id === id) ?? -1;
    if (at >= 0) {
      this.held!.splice(at, 1);
      this.answered(id);
    }
    return true;
  }

  private deliver(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
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

  private track(id: RequestId, delta: 1 | -1): boolean {
    const count = this.unanswered.get(id) ?? 0;
    if (delta < 0 && count === 0) return false;
    if (count + delta === 0) this.unanswered.delete(id);
    else this.unanswered.set(id, count + delta);
    this.unansweredCount += delta;
    return true;
  }

  private answered(id: RequestId): void {
    if (!this.track(id, -1)) return;
    if (this.inputEnded) this.finishIfDone();
    // Not from inside send(): the server may be in the middle of its own bookkeeping.
    else setImmediate(this.pull);
  }

  private write(message: JSONRPCMessage): Promise<void> {
    const written = new Promise<void>((resolve, reject) => {
      this.stdout.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
    this.lastWrite = written.catch(() => {});
    return written;
  }

  private readonly endGuard = (): void => {
    if (!this.guard.writableEnded) this.guard.end();
  };

  private readonly onInputEnd = (): void => {
    this.inputEnded = true;
    const timeout = this.options.drainAtEofMs ?? DRAIN_AT_EOF_MS;
    this.drainTimer = setTimeout(() => {
      this.options.onDrainTimeout?.(this.unansweredCount);
      // A client that stopped reading must not keep the process alive with what is still unwritten.
      if (this.stdout.writableLength > 0) this.stdout.destroy();
      void this.close();
    }, timeout);
    this.drainTimer.unref();
    this.finishIfDone();
  };

  /** After end of input: closes once every request is answered and stdout has taken all of it. */
  private finishIfDone(): void {
    if (this.isClosed || this.unansweredCount > 0) return;
    void this.lastWrite.then(() => this.close());
  }

  private readonly onStdinError = (error: Error): void => {
    this.onerror?.(error);
    this.endGuard();
  };

  private readonly onStdoutError = (error: Error): void => {
    if (this.isClosed) return;
    this.onerror?.(error);
    void this.close();
  };
}
