import { CLIENT_INFO_META_KEY, McpServer, type Implementation, type ServerContext } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import { packageVersion } from '../package.js';
import type { LazyDatabase } from './database.js';

export const INSTRUCTIONS = [
  "Syntheo is the user's local meeting memory: meetings with their note, summaries, participants, action items and transcripts, stored on this computer.",
  '- IDs (mtg_, ser_, sum_, prp_, job_...) come from tool results: find meetings with list_meetings (query, folder_path from list_folders, series_id), then read them with get_meeting and get_meeting_transcript. Never guess or build an ID.',
  "- An empty list means nothing matched: say so. Don't invent meetings, quotes, decisions or action items; cite what the tools returned.",
  '- Lists and transcripts are paged: follow pagination.next_offset until it is absent.',
  '- propose_summary_edit and propose_memo_edit only stage a proposal: the server never applies it, the user reviews and applies it in the app. Say that it awaits their review.',
  '- import_recording needs the app (syntheo-worker) running; keep the returned meeting_id and job_id and poll get_recording_import until done or failed.',
].join('\n');

export interface ServerDeps {
  db: LazyDatabase;
  logger: Logger;
}

export interface ServerFactory {
  /** What serveStdio calls once per connection (a modern client's discover probe included). */
  factory(): McpServer;
  /**
   * Loads the tools and resources and installs them on every server built so far (later ones get them
   * at once). The transport holds back the requests that need them until this resolves.
   */
  loadSurface(): Promise<void>;
}

export function createServerFactory(deps: ServerDeps): ServerFactory {
  let install: ((server: McpServer) => void) | undefined;
  let loading: Promise<void> | undefined;
  const waiting: McpServer[] = [];

  const factory = (): McpServer => {
    const server = new McpServer(
      { name: 'syntheo', title: 'Syntheo', version: packageVersion() },
      { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: INSTRUCTIONS },
    );
    if (install) install(server);
    else waiting.push(server);
    return server;
  };

  const loadSurface = (): Promise<void> => {
    const started = performance.now();
    return (loading ??= import('./surface.js').then(({ installSurface }) => {
      install = (server) => installSurface(server, deps);
      for (const server of waiting.splice(0)) install(server);
      deps.logger.debug({ ms: Math.round(performance.now() - started) }, 'tools and resources loaded');
    }));
  };

  return { factory, loadSurface };
}

/** `name/version` as the client introduced itself: per request on 2026-07-28, at initialize before. */
export function clientName(server: McpServer, ctx: ServerContext): string | null {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const info = (envelope?.[CLIENT_INFO_META_KEY] as Implementation | undefined) ?? server.server.getClientVersion();
  if (!info?.name) return null;
  return (info.version ? `${info.name}/${info.version}` : info.name).slice(0, 200);
}
