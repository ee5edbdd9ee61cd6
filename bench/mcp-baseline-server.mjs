// The start-up reference for `syntheo mcp`: the same SDK and entry (serveStdio), one no-op tool.
// With SYNTHEO_BENCH_CANNED=FILE it also has `canned`, which answers the CallToolResult stored in FILE
// (read at the first call): the same bytes as a Syntheo answer, from memory — the payload's own cost.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { readFileSync } from 'node:fs';

const cannedFile = process.env.SYNTHEO_BENCH_CANNED;
let canned;

serveStdio(() => {
  const server = new McpServer({ name: 'baseline', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('noop', { description: 'Does nothing.' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  if (cannedFile) server.registerTool('canned', { description: 'Answers a stored result.' }, () => (canned ??= JSON.parse(readFileSync(cannedFile, 'utf8'))));
  return server;
});
