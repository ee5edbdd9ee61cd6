import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { isSyntheoError } from '../errors.js';
import type { Logger } from '../log.js';
import { CSS, JS } from './assets.js';
import { html } from './html.js';
import { page } from './layout.js';
import { createAccess, guard, securityHeaders, type Access } from './security.js';

export type AppEnv = { Bindings: HttpBindings };
export type App = Hono<AppEnv>;

/** Adds the pages and endpoints that read and change data (see routes.ts). */
export type Mount = (app: App) => void;

export function createApp(opts: { access: Access; logger: Logger; mount?: Mount }): App {
  const app: App = new Hono<AppEnv>();
  const log = opts.logger;
  app.use('*', securityHeaders);
  app.use('*', guard(opts.access));
  app.get('/assets/app.css', (c) => c.body(CSS, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }));
  app.get('/assets/app.js', (c) => c.body(JS, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }));
  app.get('/', (c) => c.redirect('/meetings', 303));
  opts.mount?.(app);
  app.notFound((c) =>
    c.html(page({ title: 'Not found', section: null, body: html`<p>There is nothing at this address. <a href="/meetings">Back to the meetings</a>.</p>` }).value, 404),
  );
  app.onError((error, c) => {
    if (isSyntheoError(error) && error.kind === 'not_found')
      return c.html(page({ title: 'Not found', section: null, body: html`<p>${error.message}</p><p><a href="/meetings">Back to the meetings</a></p>` }).value, 404);
    if (isSyntheoError(error) && (error.kind === 'invalid' || error.kind === 'conflict'))
      return c.html(page({ title: 'Not possible', section: null, body: html`<p>${error.message}</p>` }).value, 400);
    log.error({ err: error, method: c.req.method, path: c.req.path }, 'request failed');
    // Safe words only: the details (SQL, paths, stacks) stay in the log.
    const message = isSyntheoError(error) ? error.message : 'Something went wrong. The details are in the log of `syntheo app` (stderr).';
    return c.html(page({ title: 'Something went wrong', section: null, body: html`<p>${message}</p>` }).value, 500);
  });
  return app;
}

export interface RunningServer {
  readonly access: Access;
  readonly server: Server;
  close(): Promise<void>;
}

/** Listens first (port 0 picks one), then builds the app for the address it got. */
export async function startServer(opts: { host: string; port: number; logger: Logger; mount?: Mount; token?: string }): Promise<RunningServer> {
  // Assigned once the port is known; the fetch handler below reads it only after that.
  // eslint-disable-next-line prefer-const -- read (by the closure) before the one assignment
  let app: App | undefined;
  const server = createAdaptorServer({
    fetch: (request, env) => app!.fetch(request, env),
    // Keep Node's own Request/Response: the worker in this process uses undici and fetch too.
    overrideGlobalObjects: false,
  }) as Server;
  // A slow or stalled client must not hold a connection for ever (uploads have their own bound).
  server.headersTimeout = 20_000;
  server.keepAliveTimeout = 5_000;
  server.listen(opts.port, opts.host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => {
      throw error;
    }),
  ]);
  const { port } = server.address() as AddressInfo;
  const access = createAccess(opts.host, port, opts.token);
  app = createApp({ access, logger: opts.logger, mount: opts.mount });
  return {
    access,
    server,
    close: async () => {
      const closed = once(server, 'close');
      server.close();
      // Event streams and keep-alive connections would hold the server open.
      server.closeAllConnections();
      await closed;
    },
  };
}
