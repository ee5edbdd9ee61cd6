// The resource templates of the reference, installed on a server. Loaded by the first resources/*
// request (see transport.ts).
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { toProtocolError } from '../errors.js';
import type { ServerDeps } from '../server.js';
import { QueryUriTemplate } from '../uri-template.js';
import { RESOURCES } from './index.js';
import { listMeetingResources } from './list.js';

export function installResources(server: McpServer, deps: ServerDeps): void {
  // The list never changes, and a server already connected would otherwise announce each registration.
  Object.assign(server, { sendResourceListChanged: async () => {} });
  for (const resource of RESOURCES) {
    server.registerResource(
      resource.name,
      new ResourceTemplate(new QueryUriTemplate(resource.uriTemplate), { list: undefined }),
      { title: resource.title, description: resource.description, mimeType: resource.mimeType },
      async (uri, variables) => {
        try {
          const text = await resource.read(await deps.db.sqlite(), variables);
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
      return await listMeetingResources(await deps.db.sqlite(), request.params?.cursor);
    } catch (error) {
      throw toProtocolError(error, deps.logger, 'resources/list');
    }
  });
}
