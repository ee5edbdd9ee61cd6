import { type JSONRPCMessage, type MessageExtraInfo, type Transport, type TransportSendOptions } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

/**
 * stdio, holding back a request whose handlers are not loaded yet (and everything after it, to keep the
 * order) until `prepare` has loaded them. Start-up then costs what the SDK costs: a client's initialize
 * or discover probe is answered before Valibot, the schemas and the tool modules load.
 */
export class PreparingStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private held: [JSONRPCMessage, MessageExtraInfo | undefined][] | undefined;

  constructor(
    private readonly prepare: (method: string) => Promise<void> | undefined,
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
    const loading = 'method' in message && 'id' in message ? this.prepare(message.method) : undefined;
    if (!loading) {
      this.onmessage?.(message, extra);
      return;
    }
    this.held = [[message, extra]];
    loading.catch(this.onPrepareError).finally(() => {
      const held = this.held ?? [];
      this.held = undefined;
      for (const [m, e] of held) this.onmessage?.(m, e);
    });
  }
}
