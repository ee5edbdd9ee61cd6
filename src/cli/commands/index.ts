import type { CommandSpec } from '../framework.js';

/**
 * The command table. Each group's module is imported only when one of its commands runs,
 * so `syntheo mcp` loads nothing it does not use.
 */
export interface GroupEntry {
  name: string;
  summary: string;
  load(): Promise<CommandSpec[]>;
}

export const GROUPS: GroupEntry[] = [
  { name: 'mcp', summary: 'Run the MCP server on stdio (what AI assistants spawn)', load: async () => (await import('./mcp.js')).commands },
  { name: 'worker', summary: 'Run the import worker (same as syntheo-worker)', load: async () => (await import('./worker.js')).commands },
  { name: 'meetings', summary: 'List, show, page through and export meetings', load: async () => (await import('./meetings.js')).commands },
  { name: 'load', summary: 'Restore meetings from an export (JSON)', load: async () => (await import('./load.js')).commands },
  { name: 'demo', summary: 'Fill the database with a realistic sample', load: async () => (await import('./demo.js')).commands },
];
