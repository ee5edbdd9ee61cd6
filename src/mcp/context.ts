/**
 * What the server hands to the lazily loaded tools and resources: a leaf module, so that
 * tools/install.ts and resources/install.ts need nothing from server.ts (no import cycle).
 */
import { CLIENT_INFO_META_KEY, type Implementation, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { Logger } from '../log.js';
import type { StoreOnFirstUse } from './store.js';

export interface ServerDeps {
  store: StoreOnFirstUse;
  logger: Logger;
}

/** `name/version` as the client introduced itself: per request on 2026-07-28, at initialize before. */
export function clientName(server: McpServer, ctx: ServerContext): string | null {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const info = (envelope?.[CLIENT_INFO_META_KEY] as Implementation | undefined) ?? server.server.getClientVersion();
  if (!info?.name) return null;
  return (info.version ? `${info.name}/${info.version}` : info.name).slice(0, 200);
}
