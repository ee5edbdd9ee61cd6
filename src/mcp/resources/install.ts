// The resource templates of the reference, installed on a server. Loaded by the first resources/*
// request (see transport.ts).
import { ResourceTemplate, type McpServer, type ReadResourceResult, type StandardSchemaV1, type Variables } from '@modelcontextprotocol/server';
import { invalidParams, toProtocolError } from '../errors.js';
import type { ServerDeps } from '../context.js';
import { QueryUriTemplate } from '../uri-template.js';
import { oneLine } from '../wire-errors.js';
import { RESOURCES } from './index.js';
import { listMeetingResources } from './list.js';
import type { ResourceDefinition } from './resource.js';

/** Longest resource URI read: an ID is a few dozen characters, a URI with its query a few hundred. */
export const MAX_RESOURCE_URI = 4_096;

/**
 * Params reach the handlers below as they came: the SDK's own check would answer a wrong type with a
 * multi-line dump and -32603, these answer one line and -32602.
 */
const RAW_PARAMS: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'syntheo', validate: (value) => ({ value: value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {} }) },
};

export function installResources(server: McpServer, deps: ServerDeps): void {
  // The list never changes, and a server already connected would otherwise announce each registration.
  Object.assign(server, { sendResourceListChanged: async () => {} });
  const templates = RESOURCES.map((resource) => ({ resource, template: new QueryUriTemplate(resource.uriTemplate) }));
  const read = async (resource: ResourceDefinition, uri: string, variables: Variables): Promise<ReadResourceResult> => {
    try {
      const text = await resource.read(await deps.store.get(), variables);
      return { contents: [{ uri, mimeType: resource.mimeType, text }] };
    } catch (error) {
      throw toProtocolError(error, deps.logger, `resources/read ${resource.name}`);
    }
  };
  // Registered for resources/templates/list; reads go through the handler below.
  for (const { resource, template } of templates) {
    server.registerResource(
      resource.name,
      new ResourceTemplate(template, { list: undefined }),
      { title: resource.title, description: resource.description, mimeType: resource.mimeType },
      (uri, variables) => read(resource, uri.href, variables),
    );
  }

  server.server.setRequestHandler('resources/read', { params: RAW_PARAMS }, async (params) => {
    const uri = resourceUrl(params.uri);
    for (const { resource, template } of templates) {
      const variables = template.match(uri);
      if (variables) return read(resource, uri, variables);
    }
    throw invalidParams(`Resource ${oneLine(uri, 100)} not found. Use a URI from resources/list, or one of resources/templates/list (syntheo://meetings/{meeting_id}, syntheo://series/{series_id}).`);
  });

  // The stock resources/list ignores the cursor: recent meetings are paged here.
  server.server.setRequestHandler('resources/list', { params: RAW_PARAMS }, async (params) => {
    const { cursor } = params;
    if (cursor !== undefined && typeof cursor !== 'string') throw invalidParams(`The cursor must be a string (the nextCursor of the previous resources/list page, e.g. "20"), got ${typeof cursor === 'number' ? 'a number' : typeof cursor}.`);
    try {
      return await listMeetingResources(await deps.store.get(), cursor);
    } catch (error) {
      throw toProtocolError(error, deps.logger, 'resources/list');
    }
  });
}

/** The URI of a resources/read, as the URL parser normalises it (what templates match); -32602 when it is not one. */
function resourceUrl(uri: unknown): string {
  if (typeof uri !== 'string') throw invalidParams('resources/read needs params.uri, a string such as syntheo://meetings/mtg_... .');
  if (uri.length > MAX_RESOURCE_URI) throw invalidParams(`The resource URI is ${uri.length} characters long, over the ${MAX_RESOURCE_URI} Syntheo reads. Use a URI from resources/list or resources/templates/list.`);
  try {
    return new URL(uri).href;
  } catch {
    throw invalidParams(`Resource URI ${oneLine(JSON.stringify(uri), 120)} is not a valid URI. Use syntheo://meetings/{meeting_id} with an ID from resources/list.`);
  }
}
