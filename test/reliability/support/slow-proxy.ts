// A delaying reverse proxy on 127.0.0.1 in front of a test server: each request waits a random time
// (drawn per request) before it is forwarded, which widens the windows in which a worker can be
// killed mid-transcription or mid-summary. A client that disappears mid-request is simply dropped.
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowProxy {
  url: string;
  /** Requests forwarded (or still waiting). */
  requests(): number;
  close(): Promise<void>;
}

export async function startSlowProxy(target: string, delayMs: () => number): Promise<SlowProxy> {
  const to = new URL(target);
  let count = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    count++;
    const fail = () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    };
    req.on('error', () => res.destroy());
    req.pause();
    setTimeout(() => {
      if (req.destroyed || res.destroyed) return;
      const upstream = request(
        { hostname: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('error', () => res.destroy());
        },
      );
      upstream.on('error', fail);
      res.on('close', () => upstream.destroy());
      req.pipe(upstream);
      req.resume();
    }, delayMs());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
