// The tools of the reference, installed on a server. Loaded by the first tools/* request (see
// transport.ts): initialize and a modern client's discover probe never load Valibot or the tool modules.
import { ProtocolError, ProtocolErrorCode, type CallToolResult, type McpServer, type RegisteredTool } from '@modelcontextprotocol/server';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';
import { invalidParams, toProtocolError } from '../errors.js';
import { clientName, type ServerDeps } from '../context.js';
import type { ToolDefinition } from '../tool.js';
import { TOOLS } from './index.js';
import { clip as clipText } from '../../text/clip.js';

interface PreparedTool {
  definition: ToolDefinition;
  input: ReturnType<typeof toStandardJsonSchema>;
  output: ReturnType<typeof toStandardJsonSchema>;
}

// Once per process; the SDK turns them into JSON Schema when tools/list asks.
const PREPARED: readonly PreparedTool[] = TOOLS.map((definition) => ({
  definition,
  input: withoutDialect(toStandardJsonSchema(definition.input)),
  output: toStandardJsonSchema(definition.output),
}));

/**
 * The input schema without `$schema` (2020-12 is the default when absent, per the 2025-11-25 and
 * 2026-07-28 specifications) and without an empty `required`: every client puts the input schemas in
 * front of the model, and these cost ~15 tokens a tool.
 */
function withoutDialect(schema: ReturnType<typeof toStandardJsonSchema>): ReturnType<typeof toStandardJsonSchema> {
  const std = schema['~standard'];
  const lean = (json: Record<string, unknown>): Record<string, unknown> => {
    const { $schema: _dialect, ...rest } = json;
    if (Array.isArray(rest.required) && rest.required.length === 0) delete rest.required;
    return rest;
  };
  const jsonSchema = { input: (o: Parameters<typeof std.jsonSchema.input>[0]) => lean(std.jsonSchema.input(o)), output: (o: Parameters<typeof std.jsonSchema.output>[0]) => lean(std.jsonSchema.output(o)) };
  return { ...schema, '~standard': { ...std, jsonSchema } } as ReturnType<typeof toStandardJsonSchema>;
}

export function installTools(server: McpServer, deps: ServerDeps): void {
  // The list never changes, and a server already connected would otherwise announce each registration.
  Object.assign(server, { sendToolListChanged: async () => {} });
  const byName = new Map<string, { definition: ToolDefinition; registered: RegisteredTool }>();
  for (const { definition, input, output } of PREPARED) {
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
      const store = await deps.store.get();
      const out = (await tool.definition.handler(store, parsed.output, { client: clientName(server, ctx) })) as Record<string, unknown>;
      deps.logger.debug({ tool: name, ms: round(performance.now() - started) }, 'tool call');
      // The specification (2025-06-18 and 2026-07-28) says a tool returning structured content SHOULD also
      // return the serialised JSON in a text block; we depart from it on purpose: clients that forward both
      // would make the model read the answer twice, and a compact rendering reads better for those that
      // forward only content. The MUST (structuredContent conforms to the outputSchema) holds.
      const result: CallToolResult = { content: [{ type: 'text', text: tool.definition.text(out) }], structuredContent: out };
      return server.server.projectCallToolResult(result, tool.registered.outputSchemaJson);
    } catch (error) {
      const mapped = toProtocolError(error, deps.logger, name);
      deps.logger.info({ tool: name, code: mapped.code, ms: round(performance.now() - started) }, mapped.message);
      throw mapped;
    }
  });
}

function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = clipText(issue.path?.map((p) => String(p.key)).join('.') ?? '', 100);
      // Valibot quotes the received value: a 10 MB argument must not come back in the message.
      const message = clipText(issue.message, 200);
      return path ? `${path}: ${message}` : message;
    })
    .join('; ');
}


const round = (ms: number): number => Math.round(ms * 100) / 100;
