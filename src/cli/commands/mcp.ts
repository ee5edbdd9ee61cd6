import type { CommandSpec } from '../framework.js';

export const commands: CommandSpec[] = [
  {
    name: 'mcp',
    summary: 'Run the MCP server on stdio (what AI assistants spawn)',
    description:
      'Run the MCP server on stdio. It speaks MCP 2026-07-28 and older clients (2025-11-25, 2025-06-18, 2025-03-26),\nreads the database and writes only proposals and import jobs. Creates the database on first use.\nstdout carries JSON-RPC only; logs go to stderr.',
    examples: ['syntheo mcp', 'syntheo mcp --db ~/meetings.db --log-level info', 'npx -y @modelcontextprotocol/inspector@2.12.0 --cli syntheo mcp --method tools/list'],
    // stdout is the JSON-RPC stream: --json has nothing to act on.
    globals: ['db', 'log-level', 'color', 'no-color'],
    async run(ctx) {
      // Someone typed `syntheo mcp` in a terminal: say why nothing seems to happen (stdout stays JSON-RPC only).
      if (process.stdin.isTTY) ctx.warn('syntheo mcp: waiting for an MCP client on stdin (assistants start this command themselves); Ctrl-C to stop.');
      const { runMcpServer } = await import('../../mcp/main.js');
      await runMcpServer({ dbPath: ctx.location(), logger: ctx.logger });
    },
  },
];
