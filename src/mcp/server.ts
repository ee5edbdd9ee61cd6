import {
  CLIENT_INFO_META_KEY,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  ResourceTemplate,
  type CallToolResult,
  type Implementation,
  type RegisteredTool,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import type { Logger } from '../log.js';
import { packageVersion } from '../package.js';
import type { LazyDatabase } from './database.js';
import { invalidParams, toProtocolError } from './errors.js';
import { RESOURCES } from './resources/index.js';
import { listMeetingResources } from './resources/list.js';
import { QueryUriTemplate } from './uri-template.js';
import type { ToolDefinition } from './tool.js';
import { TOOLS } from './tools/index.js';

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

interface PreparedTool {
  definition: ToolDefinition;
  input: ReturnType<typeof toStandardJsonSchema>;
  output: ReturnType<typeof toStandardJsonSchema>;
}

/**
 * The factory serveStdio calls once per connection (a modern client's discover probe included), so it
 * only wires handlers: the schemas' JSON is computed when tools/list asks, the database is opened by the
 * first request that reads it.
 */
export function createServerFactory(deps: ServerDeps): () => McpServer {
  const tools: PreparedTool[] = TOOLS.map((definition) => ({
    definition,
    input: toStandardJsonSchema(definition.input),
    output: toStandardJsonSchema(definition.output),
  }));
  return () => buildServer(deps, tools);
}

function buildServer(deps: ServerDeps, tools: readonly PreparedTool[]): McpServer {
  const server = new McpServer(
    { name: 'syntheo', title: 'Syntheo', version: packageVersion() },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  registerTools(server, tools, deps);
  registerResources(server, deps);
  return server;
}

function registerTools(server: McpServer, tools: readonly PreparedTool[], deps: ServerDeps): void {
  const byName = new Map<string, { definition: ToolDefinition; registered: RegisteredTool }>();
  for (const { definition, input, output } of tools) {
    // registerTool keeps tools/list generated from the schemas; calls go through the handler below.
    const registered = server.registerTool(
      definition.name,
      { title: definition.title, description: definition.description, inputSchema: input, outputSchema: output, annotations: definition.annotations },
      () => {
        throw new ProtocolError(ProtocolErrorCode.InternalError, 'Unreachable: tools/call is dispatched by Syntheo.');
      },
    );
    byName.set(definition.name, { definition, registered });
  }

  // The stock handler turns every failure into an isError result; the reference wants JSON-RPC errors.
  server.server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name } = request.params;
    const tool = byName.get(name);
    if (!tool) throw invalidParams(`Unknown tool "${String(name).slice(0, 100)}". Call tools/list for the available tools.`);
    const parsed = v.safeParse(tool.definition.input, request.params.arguments ?? {});
    if (!parsed.success) throw invalidParams(`Invalid arguments for ${name}: ${describeIssues(parsed.issues)}`);
    const started = performance.now();
    try {
      const sqlite = await deps.db.sqlite();
      const out = (await tool.definition.handler(sqlite, parsed.output, { client: clientName(server, ctx) })) as Record<string, unknown>;
      deps.logger.debug({ tool: name, ms: round(performance.now() - started) }, 'tool call');
      const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(out) }], structuredContent: out };
      return server.server.projectCallToolResult(result, tool.registered.outputSchemaJson);
    } catch (error) {
      const mapped = toProtocolError(error, deps.logger, name);
      deps.logger.info({ tool: name, code: mapped.code, ms: round(performance.now() - started) }, mapped.message);
      throw mapped;
    }
  });
}

function registerResources(server: McpServer, deps: ServerDeps): void {
  for (const resource of RESOURCES) {
    server.registerResource(
      resource.name,
      new ResourceTemplate(new QueryUriTemplate(resource.uriTemplate), { list: undefined }),
      { title: resource.title, description: resource.description, mimeType: resource.mimeType },
      async (uri, variables) => {
        try {
          const text = resource.read(await deps.db.sqlite(), variables);
          return { contents: [{ uri: uri.href, mimeType: resource.mimeType, text }] };
        } catch (error) {
          throw toProtocolError(error, deps.logger, `resources/read ${resource.name}`);
        }
      },
    );
  }

  // The stock resources/list ignores the cursor: recent meetings are paged here.
  server.server.setRequestHandler('resources/list', async (request) => {
    try {
      return listMeetingResources(await deps.db.sqlite(), request.params?.cursor);
    } catch (error) {
      throw toProtocolError(error, deps.logger, 'resources/list');
    }
  });
}

/** `name/version` as the client introduced itself: per request on 2026-07-28, at initialize before. */
function clientName(server: McpServer, ctx: ServerContext): string | null {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const fromEnvelope = envelope?.[CLIENT_INFO_META_KEY] as Implementation | undefined;
  const info = fromEnvelope ?? server.server.getClientVersion();
  if (!info?.name) return null;
  return (info.version ? `${info.name}/${info.version}` : info.name).slice(0, 200);
}

function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path?.map((p) => String(p.key)).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
