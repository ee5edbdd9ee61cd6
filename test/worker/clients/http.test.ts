import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import {
  LLM_SERVICE,
  PermanentHttpError,
  TRANSCRIPTION_SERVICE,
  TransientHttpError,
  backoffDelay,
  createDispatcher,
  joinUrl,
  parseRetryAfter,
  parseServerError,
  sendWithRetry,
  type HttpRequest,
} from '../../../src/worker/clients/http.js';
import { applyFault, fault, readBody, sendJson, startForwardProxy, startLoopback, type Loopback } from '../../support/loopback.js';

const servers: { close(): Promise<void> }[] = [];
const dispatchers: Dispatcher[] = [];
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.destroy()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function echoServer(): Promise<Loopback> {
  const s = await startLoopback(async (ex) => {
    await readBody(ex.req);
    if (applyFault(ex, ex.nextFault())) return;
    ex.record.status = 200;
    sendJson(ex.res, 200, { ok: true });
  });
  servers.push(s);
  return s;
}

/** A port nothing listens on: bind, note it, release. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

const base = (url: string, extra: Partial<HttpRequest> = {}): HttpRequest => ({
  service: TRANSCRIPTION_SERVICE,
  baseUrl: url,
  path: '/v1/thing',
  method: 'POST',
  body: () => '{}',
  timeoutMs: 5_000,
  retry: { retries: 3, baseDelayMs: 5, maxDelayMs: 20 },
  ...extra,
});

describe('retry-after and backoff maths', () => {
  it('reads delta-seconds and HTTP-dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it('doubles up to the cap, with half of each delay random', () => {
    const policy = { baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4, 5].map((i) => backoffDelay(i, policy, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([0, 1, 2, 3, 4, 5].map((i) => backoffDelay(i, policy, () => 1))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('joins base URLs with or without a path or trailing slash', () => {
    expect(joinUrl('http://h:1', '/v1/x')).toBe('http://h:1/v1/x');
    expect(joinUrl('http://h:1/', '/v1/x')).toBe('http://h:1/v1/x');
    expect(joinUrl('http://h:1/proxy/', 'v1/x')).toBe('http://h:1/proxy/v1/x');
    expect(() => joinUrl('ftp://h', '/x')).toThrow(/not an http/);
  });

  it('reads OpenAI, whisper.cpp, vLLM and plain-text error bodies', () => {
    expect(parseServerError('{"error":{"message":"bad","type":"invalid_request_error","code":"x","param":"file"}}')).toMatchObject({ message: 'bad', type: 'invalid_request_error', code: 'x', param: 'file' });
    expect(parseServerError('{"error":"no \'file\' field in the request"}').message).toBe("no 'file' field in the request");
    expect(parseServerError('{"object":"error","message":"too long","type":"BadRequestError","code":400}')).toMatchObject({ message: 'too long', code: 400 });
    expect(parseServerError('File Not Found (/x)').message).toBe('File Not Found (/x)');
  });
});

describe('sendWithRetry against a loopback server', () => {
  it('retries a 500 and returns the success', async () => {
    const s = await echoServer();
    s.script(fault.status(500), fault.status(502));
    const res = await sendWithRetry(base(s.url));
    expect(res.status).toBe(200);
    expect(res.attempts).toBe(3);
    expect(s.requests.map((r) => r.status)).toEqual([500, 502, 200]);
  });

  it('waits as long as Retry-After (seconds) says before retrying a 429', async () => {
    const s = await echoServer();
    s.script(fault.rateLimit(1));
    const res = await sendWithRetry(base(s.url));
    expect(res.status).toBe(200);
    const [first, second] = s.requests;
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it('honours an HTTP-date Retry-After on a 503', async () => {
    const s = await echoServer();
    // HTTP-dates have 1 s resolution: 3 s ahead is more than 2 s ahead of now, so well over 1.5 s ahead of the first
    // request. (2 s ahead and a bound of 1 s failed once, 997.7 ms: such a date can be 1,001 ms after now, and the first
    // request comes a few ms after now.) Backoff alone would wait at most 20 ms here.
    s.script(fault.rateLimit(new Date(Date.now() + 3000).toUTCString(), 503));
    await sendWithRetry(base(s.url));
    const [first, second] = s.requests;
    expect(first!.status).toBe(503);
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1500);
  });

  it('caps a long Retry-After at maxRetryAfterMs', async () => {
    const s = await echoServer();
    s.script(fault.rateLimit(3600));
    const res = await sendWithRetry(base(s.url, { retry: { retries: 1, maxRetryAfterMs: 150 } }));
    expect(res.status).toBe(200);
    expect(s.requests[1]!.receivedAt - s.requests[0]!.receivedAt).toBeGreaterThanOrEqual(150);
  });

  it('gives up after the configured retries with the last failure', async () => {
    const s = await echoServer();
    s.script(fault.status(503, 'model loading'), fault.status(503, 'model loading'), fault.status(503, 'model loading'));
    const err = await sendWithRetry(base(s.url, { retry: { retries: 2, baseDelayMs: 1 } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientHttpError);
    expect((err as TransientHttpError).message).toBe(
      `Transcription server at ${s.url}/v1/thing failed with HTTP 503: model loading after 3 attempts. Check the server's own log.`,
    );
    expect(s.requests).toHaveLength(3);
  });

  it('does not retry a 400 and says what the server said', async () => {
    const s = await echoServer();
    s.script(fault.status(400, "Invalid model 'whisper-9'", { code: 'model_not_found' }));
    const err = await sendWithRetry(base(s.url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentHttpError);
    expect((err as PermanentHttpError).status).toBe(400);
    expect((err as PermanentHttpError).message).toBe(
      `Transcription server at ${s.url}/v1/thing rejected the request (HTTP 400: Invalid model 'whisper-9'). Check transcription.model and transcription.url.`,
    );
    expect(s.requests).toHaveLength(1);
  });

  it('retries when the server drops the connection', async () => {
    const s = await echoServer();
    s.script(fault.close());
    const res = await sendWithRetry(base(s.url));
    expect(res.attempts).toBe(2);
    expect(s.requests.map((r) => r.fault)).toEqual(['close', null]);
  });

  it('explains a refused connection and retries it', async () => {
    const port = await closedPort();
    const err = await sendWithRetry(base(`http://127.0.0.1:${port}`, { retry: { retries: 2, baseDelayMs: 1 } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientHttpError);
    expect((err as TransientHttpError).kind).toBe('connect');
    expect((err as TransientHttpError).attempts).toBe(3);
    expect((err as Error).message).toBe(
      `Transcription server at http://127.0.0.1:${port}/v1/thing refused the connection (ECONNREFUSED) (3 attempts). Is it running? Check transcription.url.`,
    );
  });

  it('bounds a server that never answers by timeoutMs, without retrying', async () => {
    const s = await echoServer();
    s.script(fault.hang());
    const err = await sendWithRetry(base(s.url, { timeoutMs: 300 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientHttpError);
    expect((err as TransientHttpError).kind).toBe('timeout');
    expect((err as Error).message).toMatch(/sent no answer within 300 ms/);
    expect(s.requests).toHaveLength(1);
  });

  it('stops waiting when the caller aborts', async () => {
    const s = await echoServer();
    s.script(fault.rateLimit(30));
    const ac = new AbortController();
    const pending = sendWithRetry(base(s.url, { signal: ac.signal }));
    setTimeout(() => ac.abort(new Error('shutting down')), 100);
    await expect(pending).rejects.toThrow('shutting down');
    expect(s.requests).toHaveLength(1);
  });

  it('never puts the API key or credentials in messages', async () => {
    const s = await echoServer();
    const key = 'sk-secret-0123456789';
    s.script(fault.status(401, `Incorrect API key provided: ${key}`));
    const url = s.url.replace('http://', 'http://user:pw@');
    const err = await sendWithRetry(base(`${url}/?token=abc`, { apiKey: key })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentHttpError);
    const msg = (err as Error).message;
    expect(msg).toBe(`Transcription server at ${s.url}/v1/thing rejected the request (HTTP 401: Incorrect API key provided: [redacted]). The server refused the credentials. Check SYNTHEO_TRANSCRIPTION_API_KEY.`);
    expect(s.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
  });
});

describe('an overall deadline per request', () => {
  it('cuts off a server that trickles its body one byte at a time, each within the silence timeout', async () => {
    const s = await echoServer();
    s.script(fault.trickle(100));
    const err = await sendWithRetry(base(s.url, { timeoutMs: 600 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientHttpError);
    expect((err as TransientHttpError).kind).toBe('timeout');
    expect((err as Error).message).toBe(
      `Transcription server at ${s.url}/v1/thing did not finish its answer within 600 ms (HTTP 200; the body was still arriving). A proxy or the server is sending it too slowly: check them, or allow more time.`,
    );
    expect(s.requests).toHaveLength(1);
  });
});

describe('bounded responses', () => {
  it('refuses an LLM answer over 4 MiB, and a transcription answer over 32 MiB, each with what to do', async () => {
    const s = await echoServer();
    const pad = (mib: number) => `{"pad":"${'x'.repeat(mib * 1024 * 1024)}"}`;
    s.script(fault.reply(pad(4)), fault.reply(pad(32)));
    // Generous deadlines: a 32 MiB answer takes a while on a loaded machine.
    const llm = await sendWithRetry(base(s.url, { service: LLM_SERVICE, timeoutMs: 50_000 })).catch((e: unknown) => e);
    expect(llm).toBeInstanceOf(PermanentHttpError);
    expect((llm as Error).message).toBe(`LLM server at ${s.url}/v1/thing sent a response larger than 4 MiB. A summary is never that long: check llm.url and llm.model.`);
    const stt = await sendWithRetry(base(s.url, { timeoutMs: 50_000 })).catch((e: unknown) => e);
    expect((stt as Error).message).toBe(
      `Transcription server at ${s.url}/v1/thing sent a response larger than 32 MiB. Lower transcription.chunk_seconds so that each request carries less audio, and check transcription.url.`,
    );
  });
});

describe('one shared dispatcher, with HTTP_PROXY / NO_PROXY', () => {
  it('goes through HTTP_PROXY, its tunnels reused by consecutive requests', async () => {
    const s = await echoServer();
    const proxy = await startForwardProxy();
    servers.push(proxy);
    const dispatcher = createDispatcher({ env: { HTTP_PROXY: proxy.url } });
    dispatchers.push(dispatcher);
    for (let k = 0; k < 6; k++) expect((await sendWithRetry(base(s.url, { dispatcher }))).status).toBe(200);
    expect(s.requests).toHaveLength(6);
    // Every request came from the proxy's side of a tunnel; undici's pool may open a second
    // connection while the first is being released, never one per request.
    expect(s.requests.every((r) => proxy.outboundPorts.has(r.remotePort))).toBe(true);
    expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(s.url).host]));
    expect(proxy.tunnels.length).toBeLessThanOrEqual(3);
  });

  it('reads the lower-case http_proxy too, and HTTPS_PROXY does not catch http:// URLs', async () => {
    const s = await echoServer();
    const proxy = await startForwardProxy();
    const other = await startForwardProxy();
    servers.push(proxy, other);
    const dispatcher = createDispatcher({ env: { http_proxy: proxy.url, HTTPS_PROXY: other.url } });
    dispatchers.push(dispatcher);
    await sendWithRetry(base(s.url, { dispatcher }));
    expect(proxy.tunnels).toHaveLength(1);
    expect(other.tunnels).toHaveLength(0);
  });

  it('bypasses the proxy for hosts in NO_PROXY (host, or host:port)', async () => {
    const s = await echoServer();
    const proxy = await startForwardProxy();
    servers.push(proxy);
    const port = new URL(s.url).port;
    for (const noProxy of ['127.0.0.1', `127.0.0.1:${port}`, '*']) {
      const dispatcher = createDispatcher({ env: { HTTP_PROXY: proxy.url, NO_PROXY: noProxy } });
      dispatchers.push(dispatcher);
      expect((await sendWithRetry(base(s.url, { dispatcher }))).status).toBe(200);
    }
    // A NO_PROXY entry for another port does not match.
    const dispatcher = createDispatcher({ env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1:1' } });
    dispatchers.push(dispatcher);
    await sendWithRetry(base(s.url, { dispatcher }));
    expect(proxy.tunnels).toEqual([`127.0.0.1:${port}`]);
    expect(s.requests).toHaveLength(4);
  });

  it('without proxy variables, connects directly and reuses its connections', async () => {
    const s = await echoServer();
    const dispatcher = createDispatcher({ env: {} });
    dispatchers.push(dispatcher);
    for (let k = 0; k < 6; k++) await sendWithRetry(base(s.url, { dispatcher }));
    expect(s.requests).toHaveLength(6);
    expect(new Set(s.requests.map((r) => r.remotePort)).size).toBeLessThanOrEqual(3);
  });
});
