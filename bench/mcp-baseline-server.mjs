// The start-up reference for `syntheo mcp`: the same SDK and entry (serveStdio), one no-op tool.
// With SYNTHEO_BENCH_CANNED=FILE it also has `canned`, which answers the CallToolResult stored in FILE
// (read by `canned_load`, untimed): the same bytes as a Syntheo answer, from memory — the payload's own
// cost. One such server serves every row of a run, a new FILE loaded before each.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { readFileSync } from 'node:fs';

const cannedFile = process.env.SYNTHEO_BENCH_CANNED;
let canned;

serveStdio(() => {
  const server = new McpServer({ name: 'baseline', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('noop', { description: 'Does nothing.' }, () => ({ content: [{ type: 'text', text: 'ok' }] }));
  if (cannedFile) {
    server.registerTool('canned_load', { description: 'Reads the stored result.' }, () => {
      canned = JSON.parse(readFileSync(cannedFile, 'utf8'));
      return { content: [{ type: 'text', text: 'ok' }] };
    });
    server.registerTool('canned', { description: 'Answers the stored result.' }, () => canned);
  }
  return server;
});
