import type { CommandSpec } from '../framework.js';

export const commands: CommandSpec[] = [
  {
    name: 'mcp',
    summary: 'Run the MCP server on stdio (what AI assistants spawn)',
    description:
      'Run the MCP server on stdio. It speaks MCP 2026-07-28 and older clients (2025-11-25, 2025-06-18, 2025-03-26),\nreads the database and writes only proposals and import jobs. Creates the database on first use.\nstdout carries JSON-RPC only; logs go to stderr.',
    examples: ['syntheo mcp', 'syntheo mcp --db ~/meetings.db --log-level info', 'npx @modelcontextprotocol/inspector --cli syntheo mcp --method tools/list'],
    async run(ctx) {
      const { runMcpServer } = await import('../../mcp/main.js');
      await runMcpServer({ dbPath: ctx.dbPath(), logger: ctx.logger });
    },
  },
];
