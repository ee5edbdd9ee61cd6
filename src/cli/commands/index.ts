import type { GroupEntry } from '../framework.js';

export type { GroupEntry };

/**
 * The command table. Each group's module is imported only when one of its commands runs,
 * so `syntheo mcp` loads nothing it does not use. Only run.ts imports it; help and completion
 * get it as ctx.groups (they are loaded from here, so importing it back would be a cycle).
 */
export const GROUPS: GroupEntry[] = [
  { name: 'mcp', summary: 'Run the MCP server on stdio (what AI assistants spawn)', load: async () => (await import('./mcp.js')).commands },
  { name: 'app', summary: 'Open the app: read meetings, review proposals, import recordings (a local web page)', load: async () => (await import('./app.js')).commands },
  { name: 'worker', summary: 'Run the import worker (same as syntheo-worker)', load: async () => (await import('./worker.js')).commands },
  { name: 'doctor', summary: 'Check the database, the worker and the configured servers', load: async () => (await import('./doctor.js')).commands },
  { name: 'meetings', summary: 'List, show, page through and export meetings', load: async () => (await import('./meetings.js')).commands },
  { name: 'folders', summary: 'List and create folders', load: async () => (await import('./folders.js')).commands },
  { name: 'proposals', summary: "Review assistants' proposed edits: show the diff, apply or decline", load: async () => (await import('./proposals.js')).commands },
  { name: 'imports', summary: 'Import recordings and follow their progress', load: async () => (await import('./imports.js')).commands },
  { name: 'config', summary: 'Set the transcription and LLM servers and other settings', load: async () => (await import('./config.js')).commands },
  { name: 'load', summary: 'Restore meetings from an export (JSON)', load: async () => (await import('./load.js')).commands },
  { name: 'search', summary: 'Find what was said in any meeting', load: async () => (await import('./search.js')).commands },
  { name: 'demo', summary: 'Fill the database with a realistic sample', load: async () => (await import('./demo.js')).commands },
  { name: 'service', summary: 'Run the worker in the background from login (install, uninstall, status)', load: async () => (await import('./service.js')).commands },
  { name: 'connect', summary: 'Connect an assistant: print or write its config (claude-desktop, cursor, vscode, claude-code)', load: async () => (await import('./connect.js')).commands },
  { name: 'db', summary: 'Team databases: PostgreSQL roles, copy between SQLite and PostgreSQL', load: async () => (await import('./db.js')).commands },
  { name: 'studio', summary: 'Browse the database with Drizzle Studio', load: async () => (await import('./studio.js')).commands },
  { name: 'help', summary: 'Show the help of a command: syntheo help meetings list', load: async () => (await import('./help.js')).commands },
  { name: 'completion', summary: 'Print a shell completion script (bash, zsh, fish)', load: async () => (await import('./completion.js')).commands },
];
