import { McpServer } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { packageVersion } from '../package.js';
import type { ServerDeps } from './context.js';

// Kept here too for callers that import them from the server.
export { clientName, type ServerDeps } from './context.js';

export const INSTRUCTIONS = [
  "Syntheo is the user's local meeting memory: meetings with their note, summaries, participants, action items and transcripts, stored on this computer.",
  '- IDs (mtg_, ser_, sum_, prp_, job_...) come from tool results: find meetings with list_meetings (query, folder_path from list_folders, series_id), then read them with get_meeting and get_meeting_transcript. Never guess or build an ID.',
  '- To find when something was discussed and what was said, use search_transcripts; its transcript hits give the offset to read the passage with get_meeting_transcript.',
  "- An empty list means nothing matched: say so. Don't invent meetings, quotes, decisions or action items; cite what the tools returned.",
  '- Lists and transcripts are paged: follow pagination.next_offset until it is absent.',
  '- propose_summary_edit and propose_memo_edit only stage a proposal: the server never applies it, the user reviews and applies it in the app. Say that it awaits their review.',
  '- import_recording needs the app (syntheo-worker) running; keep the returned meeting_id and job_id and poll get_recording_import until done or failed.',
].join('\n');

export interface ServerFactory {
  /** What serveStdio calls once per connection (a modern client's discover probe included). */
  factory(): McpServer;
  /**
   * What must load before `method` can be served: the tools for tools/*, the resources for
   * resources/*, installed on every server built so far (later ones get them at once). Undefined when
   * nothing is left to load; the transport holds the request back until the promise settles.
   */
  prepare(method: string): Promise<void> | undefined;
}

/** A part of the server loaded on first use, then installed on each server instance. */
class LazyPart {
  private install: ((server: McpServer) => void) | undefined;
  private loading: Promise<void> | undefined;
  private readonly waiting: McpServer[] = [];

  constructor(
    private readonly name: string,
    private readonly load: () => Promise<(server: McpServer) => void>,
    private readonly logger: Logger,
  ) {}

  add(server: McpServer): void {
    if (this.install) this.install(server);
    else this.waiting.push(server);
  }

  ready(): Promise<void> | undefined {
    if (this.install) return undefined;
    const started = performance.now();
    return (this.loading ??= this.load().then((install) => {
      this.install = install;
      for (const server of this.waiting.splice(0)) install(server);
      this.logger.debug({ part: this.name, ms: Math.round(performance.now() - started) }, 'loaded');
    }));
  }
}

export function createServerFactory(deps: ServerDeps): ServerFactory {
  const tools = new LazyPart('tools', async () => {
    const { installTools } = await import('./tools/install.js');
    return (server) => installTools(server, deps);
  }, deps.logger);
  const resources = new LazyPart('resources', async () => {
    const { installResources } = await import('./resources/install.js');
    return (server) => installResources(server, deps);
  }, deps.logger);

  return {
    factory: () => {
      const server = new McpServer(
        { name: 'syntheo', title: 'Syntheo', version: packageVersion() },
        { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: INSTRUCTIONS },
      );
      tools.add(server);
      resources.add(server);
      return server;
    },
    prepare: (method) => {
      if (method.startsWith('tools/')) return tools.ready();
      if (method.startsWith('resources/')) return resources.ready();
      return undefined;
    },
  };
}
