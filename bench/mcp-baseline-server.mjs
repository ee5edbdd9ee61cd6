// The start-up reference for `syntheo mcp`: the same SDK and entry (serveStdio), one no-op tool.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

serveStdio(() => {
  const server = new McpServer({ name: 'baseline', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('noop', { description: 'Does nothing.' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  return server;
});
