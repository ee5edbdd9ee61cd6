import { type JSONRPCMessage, type MessageExtraInfo, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/** Requests a server answers without its tools and resources: the opening exchange. */
const OPENING = new Set(['initialize', 'server/discover', 'ping']);

/**
 * stdio, holding back the first request that needs the tools or resources (and everything after it, to
 * keep the order) until `prepare` has loaded them. Start-up then costs what the SDK costs: a client's
 * initialize or discover probe is answered before Valibot, the schemas and the tool modules load.
 */
export class PreparingStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private ready = false;
  private held: [JSONRPCMessage, MessageExtraInfo | undefined][] | undefined;

  constructor(
    private readonly prepare: () => Promise<void>,
    private readonly onPrepareError: (error: unknown) => void,
    private readonly inner: Transport = new StdioServerTransport(),
  ) {}

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
    if (this.held) {
      this.held.push([message, extra]);
      return;
    }
    if (this.ready || !('method' in message) || !('id' in message) || OPENING.has(message.method)) {
      this.onmessage?.(message, extra);
      return;
    }
    this.held = [[message, extra]];
    this.prepare()
      .catch(this.onPrepareError)
      .finally(() => {
        this.ready = true;
        const held = this.held ?? [];
        this.held = undefined;
        for (const [m, e] of held) this.onmessage?.(m, e);
      });
  }
}
