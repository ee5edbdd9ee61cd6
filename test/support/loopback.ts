import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

// Shared by the fake LLM and transcription servers: a loopback HTTP server, a queue of scripted
// faults applied one per request, and a log of every request for assertions.

export type Fault =
  /** An error status with an OpenAI-style body (or `body` verbatim). */
  | { kind: 'status'; status: number; message?: string; type?: string; code?: string | number | null; body?: string | Record<string, unknown>; headers?: Record<string, string> }
  /** 429 (or 503) with a Retry-After header: seconds, or an HTTP-date string. */
  | { kind: 'rate-limit'; retryAfter: number | string; status?: 429 | 503 }
  /** A 200 whose body is not JSON. */
  | { kind: 'malformed'; body?: string }
  /** Reads the request, then never answers (until the server is closed). */
  | { kind: 'hang' }
  /** Reads the request, then drops the connection without a response. */
  | { kind: 'close' }
  /** Any canned answer. */
  | { kind: 'reply'; status?: number; body: string | Record<string, unknown>; headers?: Record<string, string> }
  /** A 200 head at once, then one byte of the body every `everyMs`, never finishing (until the server is closed). */
  | { kind: 'trickle'; everyMs: number };

export const fault = {
  status: (status: number, message?: string, extra: Partial<Extract<Fault, { kind: 'status' }>> = {}): Fault => ({ kind: 'status', status, message, ...extra }),
  rateLimit: (retryAfter: number | string, status: 429 | 503 = 429): Fault => ({ kind: 'rate-limit', retryAfter, status }),
  malformed: (body = '<html><body>502 Bad Gateway</body></html>'): Fault => ({ kind: 'malformed', body }),
  hang: (): Fault => ({ kind: 'hang' }),
  close: (): Fault => ({ kind: 'close' }),
  reply: (body: string | Record<string, unknown>, status = 200, headers?: Record<string, string>): Fault => ({ kind: 'reply', status, body, headers }),
  trickle: (everyMs = 1000): Fault => ({ kind: 'trickle', everyMs }),
};

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** Arrival time of the request head, ms since the epoch (sub-ms precision). */
  receivedAt: number;
  /** The client's port: the same for requests on one reused connection, the proxy's for proxied ones. */
  remotePort: number;
  /** Set once answered; null for hang/close. */
  status: number | null;
  fault: Fault['kind'] | null;
  /** Parsed JSON body (LLM) or form fields (transcription). */
  json?: unknown;
  fields?: Record<string, string[]>;
  file?: { field: string; filename: string; contentType: string; size: number; path: string | null };
}

export interface Loopback {
  url: string;
  requests: RecordedRequest[];
  script(...faults: Fault[]): void;
  /** Faults not yet used. */
  pending(): number;
  close(): Promise<void>;
}

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  record: RecordedRequest;
  /** Takes the next scripted fault, if any. */
  nextFault(): Fault | null;
}

export function now(): number {
  return performance.timeOrigin + performance.now();
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), ...headers });
  res.end(payload);
}

export function openAiError(message: string, type: string, code: string | number | null = null, param: string | null = null): Record<string, unknown> {
  return { error: { message, type, param, code } };
}

/**
 * Applies a fault (after the handler has read the request, as real servers do).
 * Returns true when the exchange is finished or deliberately left hanging.
 */
export function applyFault(ex: Exchange, f: Fault | null): boolean {
  if (f === null) return false;
  const { res, record } = ex;
  record.fault = f.kind;
  switch (f.kind) {
    case 'status': {
      record.status = f.status;
      const body = f.body ?? openAiError(f.message ?? `Scripted failure ${f.status}`, f.type ?? (f.status >= 500 ? 'server_error' : 'invalid_request_error'), f.code ?? null);
      sendJson(res, f.status, body, f.headers);
      return true;
    }
    case 'rate-limit': {
      const status = f.status ?? 429;
      record.status = status;
      sendJson(res, status, openAiError('Rate limit reached. Please try again later.', 'requests', 'rate_limit_exceeded'), { 'retry-after': String(f.retryAfter) });
      return true;
    }
    case 'malformed':
      record.status = 200;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(f.body ?? '{"text": "unterminated');
      return true;
    case 'reply':
      record.status = f.status ?? 200;
      sendJson(res, f.status ?? 200, f.body, f.headers);
      return true;
    case 'hang':
      return true;
    case 'trickle': {
      record.status = 200;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), f.everyMs);
      res.on('close', () => clearInterval(timer));
      return true;
    }
    case 'close':
      res.socket?.destroy();
      return true;
  }
}

export async function startLoopback(handle: (ex: Exchange) => Promise<void>): Promise<Loopback> {
  const requests: RecordedRequest[] = [];
  const faults: Fault[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://x').pathname,
      headers: req.headers,
      receivedAt: now(),
      remotePort: req.socket.remotePort ?? 0,
      status: null,
      fault: null,
    };
    requests.push(record);
    handle({ req, res, record, nextFault: () => faults.shift() ?? null }).catch((err: unknown) => {
      if (!res.headersSent) {
        record.status = 500;
        sendJson(res, 500, openAiError(`Test server bug: ${err instanceof Error ? err.message : String(err)}`, 'server_error'));
      }
    });
  });
  const url = await listenTracked(server, sockets);
  return {
    url,
    requests,
    script: (...f) => void faults.push(...f),
    pending: () => faults.length,
    close: () => closeServer(server, sockets),
  };
}

/** Listens on 127.0.0.1 (any free port), keeping track of the connections; returns the base URL. */
async function listenTracked(server: Server, sockets: Set<Socket>): Promise<string> {
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Drops the open connections (keep-alive, hanging, tunnels) so that close() returns at once. */
function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    server.close(() => resolve());
  });
}

export async function readBody(req: IncomingMessage, limit = 64 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new Error('request body too large for the test server');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface ForwardProxy {
  url: string;
  /** "host:port" of each CONNECT tunnel opened, in order. */
  tunnels: string[];
  /** Absolute-form requests forwarded (proxying without a tunnel), as "METHOD url". */
  forwarded: string[];
  /** Local ports of the proxy's own connections to the servers: what they see as remotePort. */
  outboundPorts: Set<number>;
  close(): Promise<void>;
}

/** A forward HTTP proxy on 127.0.0.1 (CONNECT tunnels and absolute-form requests) that counts what it forwarded. */
export async function startForwardProxy(): Promise<ForwardProxy> {
  const tunnels: string[] = [];
  const forwarded: string[] = [];
  const outboundPorts = new Set<number>();
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    forwarded.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '/');
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: `${target.pathname}${target.search}`, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('socket', (s) => s.on('connect', () => outboundPorts.add(s.localPort!)));
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    tunnels.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host!, () => {
      outboundPorts.add(upstream.localPort!);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  const url = await listenTracked(server, sockets);
  return {
    url,
    tunnels,
    forwarded,
    outboundPorts,
    close: () => closeServer(server, sockets),
  };
}
