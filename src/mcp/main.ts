import { format } from 'node:util';
import type { Logger } from '../log.js';

export interface McpServerOptions {
  dbPath: string;
  logger: Logger;
}

/**
 * `syntheo mcp`: serves MCP on stdio until the client closes stdin and every request it sent is
 * answered. Modern clients get 2026-07-28 (server/discover); older ones negotiate 2025-11-25,
 * 2025-06-18 or 2025-03-26 by initialize.
 * stdout carries JSON-RPC only: logs go to stderr, and so does any stray console output.
 */
export async function runMcpServer({ dbPath, logger }: McpServerOptions): Promise<void> {
  keepStdoutForJsonRpc();
  const [{ serveStdio }, { createServerFactory }, { StoreOnFirstUse }, { PreparingStdioTransport }] = await Promise.all([
    import('@modelcontextprotocol/server/stdio'),
    import('./server.js'),
    import('./store.js'),
    import('./transport.js'),
  ]);
  const store = new StoreOnFirstUse(dbPath, logger);
  const { factory, prepare } = createServerFactory({ store, logger });

  // A bad request or a bug in one handler must not take the server down with it.
  const onRejection = (reason: unknown) => logger.error({ err: reason }, 'unhandled rejection');
  const onException = (error: Error) => logger.error({ err: error }, 'uncaught exception');
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);

  const transport = new PreparingStdioTransport({
    prepare,
    onPrepareError: (error) => logger.error({ err: error }, 'cannot load the tools or resources'),
    onRejected: (reason, line) => logger.debug({ line: line.length > 200 ? `${line.slice(0, 200)}…` : line }, reason),
    onDrainTimeout: (unanswered) => logger.warn({ unanswered }, 'input ended; requests still unanswered after the grace period are dropped'),
  });
  const handle = serveStdio(factory, { transport, onerror: (error) => logger.debug({ err: error }, 'protocol') });
  logger.info({ db: dbPath, pid: process.pid }, 'syntheo mcp ready');

  // Closes once the client has closed stdin and every request read before that is answered.
  await transport.closed;
  await handle.close().catch((error: unknown) => logger.debug({ err: error }, 'close'));
  await store.close().catch((error: unknown) => logger.warn({ err: error }, 'closing the database'));
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
  logger.info('client disconnected');
}

/** A dependency that logs with console.log/info/debug would corrupt the JSON-RPC stream: send it to stderr. */
function keepStdoutForJsonRpc(): void {
  const toStderr = (...args: unknown[]) => {
    process.stderr.write(`${format(...args)}\n`);
  };
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
}
