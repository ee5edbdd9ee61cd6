import { setTimeout as sleep } from 'node:timers/promises';
import { EnvHttpProxyAgent, request, type Dispatcher, type FormData } from 'undici';
import type { Logger } from '../../log.js';
import { clip as clipText } from '../../text/clip.js';
import { displayUrl } from '../../text/url.js';
import { formatSize } from '../../text/size.js';

// Shared HTTP plumbing for the transcription and LLM clients: one undici dispatcher per worker
// (keep-alive connections reused, HTTP(S)_PROXY and NO_PROXY honoured), per-request timeouts sized for
// servers that answer only when a long recording is done plus an overall deadline, bounded response
// sizes, retries for what may pass (connect errors, 429, 5xx) with capped exponential backoff, and
// errors a person can act on.

/** Who we are talking to, so that messages name the setting to check. */
export interface Service {
  /** "Transcription server" */
  label: string;
  /** "transcription" -> messages say "Check transcription.url." */
  setting: string;
  /** "SYNTHEO_TRANSCRIPTION_API_KEY" */
  apiKeyEnv: string;
  /** A bigger response (2xx or not) is an error rather than a memory hazard. */
  maxResponseBytes: number;
  /** What to do when a response is bigger than that. */
  tooLargeHint: string;
}

/** JSON of a transcript: whisper.cpp sends ~110 bytes per sub-word token, so this holds some 20 hours of speech. */
export const MAX_TRANSCRIPTION_RESPONSE_BYTES = 32 * 1024 * 1024;
/** A chat completion holding a summary: far more than any model writes for one. */
export const MAX_LLM_RESPONSE_BYTES = 4 * 1024 * 1024;

export const TRANSCRIPTION_SERVICE: Service = {
  label: 'Transcription server',
  setting: 'transcription',
  apiKeyEnv: 'SYNTHEO_TRANSCRIPTION_API_KEY',
  maxResponseBytes: MAX_TRANSCRIPTION_RESPONSE_BYTES,
  tooLargeHint: 'Lower transcription.chunk_seconds so that each request carries less audio, and check transcription.url.',
};
export const LLM_SERVICE: Service = {
  label: 'LLM server',
  setting: 'llm',
  apiKeyEnv: 'SYNTHEO_LLM_API_KEY',
  maxResponseBytes: MAX_LLM_RESPONSE_BYTES,
  tooLargeHint: 'A summary is never that long: check llm.url and llm.model.',
};

export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is cut down to it. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ retries: 4, baseDelayMs: 1_000, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 });

export type FailureKind =
  | 'connect' // refused, unknown host, unreachable, connect timeout
  | 'network' // connection dropped after it was made
  | 'timeout' // no answer, a stalled body, or an answer unfinished within timeoutMs
  | 'status' // an HTTP error status
  | 'malformed' // a 2xx whose body we cannot use
  | 'file'; // the file being uploaded could not be read (moved, changed, deleted)

/** What an OpenAI-style (or llama.cpp / whisper.cpp / vLLM) error body said, when it said anything. */
export interface ServerErrorInfo {
  message?: string;
  type?: string;
  code?: string | number;
  param?: string;
  /** The parsed body, for callers that look at server-specific fields (n_ctx ...). */
  raw?: unknown;
}

export abstract class HttpClientError extends Error {
  abstract readonly transient: boolean;
  constructor(
    message: string,
    readonly kind: FailureKind,
    readonly url: string,
    readonly status: number | null = null,
    readonly server: ServerErrorInfo = {},
    readonly attempts = 1,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** May succeed later: connect errors, dropped connections, timeouts, 429, 5xx (after our retries ran out). */
export class TransientHttpError extends HttpClientError {
  readonly transient = true;
  constructor(
    message: string,
    kind: FailureKind,
    url: string,
    status: number | null = null,
    server: ServerErrorInfo = {},
    attempts = 1,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message, kind, url, status, server, attempts);
  }
}

/** Will fail the same way again until someone changes something: 4xx, unusable bodies. */
export class PermanentHttpError extends HttpClientError {
  readonly transient = false;
}

export interface DispatcherOptions {
  /** Where HTTP_PROXY, HTTPS_PROXY and NO_PROXY (or their lower-case forms) are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Default 15 s. */
  connectTimeoutMs?: number;
}

/**
 * The dispatcher a worker shares between all its requests (connections are reused), going through
 * HTTP_PROXY / HTTPS_PROXY except for the hosts in NO_PROXY, as undici's EnvHttpProxyAgent does:
 * lower-case names first, HTTPS_PROXY falls back to HTTP_PROXY, NO_PROXY lists host names, domain
 * suffixes (.corp.example), host:port, or *. Timeouts are set per request, not here.
 */
export function createDispatcher(opts: DispatcherOptions = {}): Dispatcher {
  const env = opts.env ?? process.env;
  const proxy = proxySettings(env);
  // '' rather than undefined: undici would fall back to process.env, and `env` is the authority.
  return new EnvHttpProxyAgent({
    httpProxy: proxy.http ?? '',
    httpsProxy: proxy.https ?? '',
    noProxy: proxy.noProxy ?? '',
    connect: { timeout: opts.connectTimeoutMs ?? 15_000 },
    keepAliveTimeout: 4_000,
  });
}

export interface ProxySettings {
  http: string | undefined;
  https: string | undefined;
  noProxy: string | undefined;
}

/** The proxy variables as undici reads them (lower-case first); empty means unset. */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  const read = (name: string): string | undefined => {
    const v = env[name.toLowerCase()] ?? env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  return { http: read('HTTP_PROXY'), https: read('HTTPS_PROXY'), noProxy: read('NO_PROXY') };
}

export interface HttpRequest {
  service: Service;
  /** Base URL as configured (e.g. http://127.0.0.1:8178); `path` is appended. */
  baseUrl: string;
  path: string;
  method: 'GET' | 'POST';
  /** Built afresh for each attempt (a stream can be sent once). */
  body?: () => FormData | string;
  headers?: Record<string, string>;
  apiKey?: string;
  timeoutMs: number;
  connectTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  logger?: Logger;
  /** The worker's shared dispatcher; without one, a dispatcher is made (from process.env) for this call. */
  dispatcher?: Dispatcher;
  /** Overrides service.maxResponseBytes. */
  maxResponseBytes?: number;
  /** Injected in tests of the backoff maths. */
  random?: () => number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  url: string;
  attempts: number;
  /** The API key the request carried: whatever quotes the body must redact it. */
  secret?: string;
}

/** Joins a configured base URL and an API path without doubling or dropping slashes. */
export function joinUrl(baseUrl: string, path: string): string {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new TypeError(`"${baseUrl}" is not a URL`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`"${baseUrl}" is not an http(s) URL`);
  const prefix = base.pathname.replace(/\/+$/, '');
  base.pathname = `${prefix}/${path.replace(/^\/+/, '')}`;
  return base.toString();
}


/** Retry-After is either delta-seconds or an HTTP-date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** Exponential backoff, capped, with "equal jitter": half fixed, half random. */
export function backoffDelay(retryIndex: number, policy: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Sends the request, retrying transient failures, and returns a 2xx response with its body read.
 * Anything else is thrown as TransientHttpError / PermanentHttpError; an abort rethrows the signal's reason.
 */
export async function sendWithRetry(req: HttpRequest): Promise<HttpResponse> {
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...req.retry };
  const url = joinUrl(req.baseUrl, req.path);
  const ownDispatcher = req.dispatcher === undefined ? createDispatcher({ connectTimeoutMs: req.connectTimeoutMs ?? Math.min(req.timeoutMs, 15_000) }) : null;
  const dispatcher = req.dispatcher ?? ownDispatcher!;
  const log = req.logger;
  try {
    for (let attempt = 1; ; attempt++) {
      req.signal?.throwIfAborted();
      let failure: HttpClientError;
      try {
        const res = await sendOnce(req, url, dispatcher, attempt);
        if (res.status >= 200 && res.status < 300) return res;
        failure = statusError(req, res, attempt);
      } catch (err) {
        if (req.signal?.aborted) throw req.signal.reason;
        if (err instanceof HttpClientError) failure = err;
        else failure = networkError(req, url, err, attempt);
      }
      const retryable = failure instanceof TransientHttpError && failure.kind !== 'timeout';
      if (!retryable || attempt > policy.retries) throw failure;
      const retryAfter = failure instanceof TransientHttpError ? failure.retryAfterMs : null;
      const delay = retryAfter !== null ? Math.min(retryAfter, policy.maxRetryAfterMs) : backoffDelay(attempt - 1, policy, req.random);
      log?.warn({ url: displayUrl(url), attempt, of: policy.retries + 1, delayMs: delay, reason: failure.message }, `${req.service.label} request failed; retrying`);
      await sleep(delay, undefined, req.signal === undefined ? undefined : { signal: req.signal }).catch(() => {
        throw req.signal?.reason;
      });
    }
  } finally {
    if (ownDispatcher !== null) void ownDispatcher.close().catch(() => {});
  }
}

async function sendOnce(req: HttpRequest, url: string, dispatcher: Dispatcher, attempt: number): Promise<HttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
  if (req.apiKey !== undefined && req.apiKey !== '') headers.authorization = `Bearer ${req.apiKey}`;
  const body = req.body?.();
  if (typeof body === 'string' && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  // undici's timeouts measure silence; this one measures the whole exchange.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), req.timeoutMs);
  const signal = req.signal === undefined ? deadline.signal : AbortSignal.any([req.signal, deadline.signal]);
  const limit = req.maxResponseBytes ?? req.service.maxResponseBytes;
  const chunks: Buffer[] = [];
  let size = 0;
  let status: number | null = null;
  try {
    const res = await request(url, {
      method: req.method,
      headers,
      body,
      dispatcher,
      signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    status = res.statusCode;
    const answer = (): HttpResponse => ({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), url, attempts: attempt, secret: req.apiKey });
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > limit) {
          res.body.destroy();
          throw new PermanentHttpError(
            `${req.service.label} at ${displayUrl(url)} sent a response larger than ${formatSize(limit)}. ${req.service.tooLargeHint}`,
            'malformed',
            displayUrl(url),
            res.statusCode,
            {},
            attempt,
          );
        }
        chunks.push(chunk);
      }
    } catch (err) {
      // A server refusing an upload (413, 401 ...) may answer then reset the connection while we
      // are still sending: its status is the real answer, not the reset.
      if (res.statusCode >= 400 && !(err instanceof HttpClientError) && !deadline.signal.aborted) return answer();
      throw err;
    }
    return answer();
  } catch (err) {
    if (deadline.signal.aborted && req.signal?.aborted !== true && !(err instanceof HttpClientError)) throw deadlineError(req, url, status, attempt);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function deadlineError(req: HttpRequest, url: string, status: number | null, attempt: number): TransientHttpError {
  const who = `${req.service.label} at ${displayUrl(url)}`;
  const message =
    status === null
      ? `${who} sent no answer within ${formatMs(req.timeoutMs)} (waiting for a response). It may be overloaded or still working on a long recording: check the server, or allow more time.`
      : `${who} did not finish its answer within ${formatMs(req.timeoutMs)} (HTTP ${status}; the body was still arriving). A proxy or the server is sending it too slowly: check them, or allow more time.`;
  return new TransientHttpError(message, 'timeout', displayUrl(url), status, {}, attempt);
}

/** Reads `{error:{message,type,code,param}}`, `{error:"..."}` (whisper.cpp), `{message,...}` (vLLM), or plain text. */
export function parseServerError(body: string): ServerErrorInfo {
  const text = body.trim();
  if (text === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { message: firstLine(text) };
  }
  if (!isRecord(parsed)) return { raw: parsed };
  const e = parsed.error;
  const src = isRecord(e) ? e : parsed;
  const info: ServerErrorInfo = { raw: parsed };
  const message = typeof e === 'string' ? e : typeof src.message === 'string' ? src.message : typeof src.detail === 'string' ? src.detail : undefined;
  if (message !== undefined) info.message = message;
  if (typeof src.type === 'string') info.type = src.type;
  if (typeof src.code === 'string' || typeof src.code === 'number') info.code = src.code;
  if (typeof src.param === 'string') info.param = src.param;
  return info;
}

function statusError(req: HttpRequest, res: HttpResponse, attempt: number): HttpClientError {
  const url = displayUrl(res.url);
  // Servers echo headers back (proxies, debug pages): the key goes before anything is parsed or cut.
  const server = parseServerError(redact(res.body, req.apiKey));
  if (server.message !== undefined) server.message = redact(server.message, req.apiKey);
  const said = server.message !== undefined ? `: ${clip(server.message).replace(/\.$/, '')}` : '';
  const who = `${req.service.label} at ${url}`;
  const s = res.status;
  const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
  if (s === 429) {
    return new TransientHttpError(`${who} is rate limiting requests (HTTP 429${said})${tries}. Wait, or check the account's limits.`, 'status', url, s, server, attempt, parseRetryAfter(res.headers['retry-after']));
  }
  if (s >= 500) {
    const retryAfter = s === 503 ? parseRetryAfter(res.headers['retry-after']) : null;
    return new TransientHttpError(`${who} failed with HTTP ${s}${said}${tries}. Check the server's own log.`, 'status', url, s, server, attempt, retryAfter);
  }
  const key = req.service.apiKeyEnv;
  let hint: string;
  if (s === 401 || s === 403) hint = `The server refused the credentials. Check ${key}.`;
  else if (s === 404) {
    const also = req.service.setting === 'transcription' ? ', transcription.api' : '';
    hint = `Check ${req.service.setting}.url (the server's base URL, such as http://127.0.0.1:8000 or https://api.openai.com/v1)${also} and ${req.service.setting}.model.`;
  }
  else if (s === 413) hint = 'The server limits the upload size; the recording has to be sent in smaller pieces.';
  else if (s === 408) hint = 'The server gave up waiting for the request.';
  else hint = `Check ${req.service.setting}.model and ${req.service.setting}.url.`;
  return new PermanentHttpError(`${who} rejected the request (HTTP ${s}${said}). ${hint}`, 'status', url, s, server, attempt);
}

function networkError(req: HttpRequest, url: string, err: unknown, attempt: number): HttpClientError {
  const who = `${req.service.label} at ${displayUrl(url)}`;
  const check = `Check ${req.service.setting}.url.`;
  const code = errorCode(err);
  const tries = attempt > 1 ? ` (${attempt} attempts)` : '';
  const u = displayUrl(url);
  switch (code) {
    case 'ECONNREFUSED':
      return new TransientHttpError(`${who} refused the connection (ECONNREFUSED)${tries}. Is it running? ${check}`, 'connect', u, null, {}, attempt);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new TransientHttpError(`${who}: the host name could not be resolved (${code})${tries}. ${check}`, 'connect', u, null, {}, attempt);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EADDRNOTAVAIL':
      return new TransientHttpError(`${who} is unreachable (${code})${tries}. Is the network up? ${check}`, 'connect', u, null, {}, attempt);
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return new TransientHttpError(`${who} did not accept a connection in time (${code})${tries}. Is the host reachable? ${check}`, 'connect', u, null, {}, attempt);
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return new TransientHttpError(
        `${who} sent no answer within ${formatMs(req.timeoutMs)} (${code === 'UND_ERR_HEADERS_TIMEOUT' ? 'waiting for a response' : 'response stalled'}). It may be overloaded or still working on a long recording: check the server, or allow more time.`,
        'timeout',
        u,
        null,
        {},
        attempt,
      );
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return new TransientHttpError(`${who} closed the connection before answering (${code})${tries}. Check the server's own log.`, 'network', u, null, {}, attempt);
    case 'ERR_INVALID_URL':
      return new PermanentHttpError(`${req.service.label} URL "${u}" is not valid. ${check}`, 'connect', u, null, {}, attempt);
    case 'ENOENT':
    case 'EACCES':
    case 'EISDIR':
      return unreadable(req, u, code, attempt);
    default: {
      const message = err instanceof Error ? err.message : String(err);
      // A file-backed Blob (fs.openAsBlob) refuses to read a file changed since it was opened.
      if (err instanceof Error && err.name === 'NotReadableError') return unreadable(req, u, 'it changed while being sent', attempt);
      return new TransientHttpError(`${who} could not be reached (${code ?? clip(redact(message, req.apiKey))})${tries}. ${check}`, 'network', u, null, {}, attempt);
    }
  }
}

function unreadable(req: HttpRequest, url: string, why: string, attempt: number): PermanentHttpError {
  return new PermanentHttpError(
    `Could not read the recording while sending it to the ${req.service.label.toLowerCase()} (${why}). Was it moved, replaced or edited during the import?`,
    'file',
    url,
    null,
    {},
    attempt,
  );
}

function errorCode(err: unknown): string | undefined {
  if (!isRecord(err)) return undefined;
  if (typeof err.code === 'string') {
    // undici wraps socket-level failures; the root cause names the real problem.
    if (err.code === 'UND_ERR_SOCKET' && isRecord(err.cause) && typeof err.cause.code === 'string') return err.cause.code;
    return err.code;
  }
  if (Array.isArray(err.errors)) {
    for (const inner of err.errors) {
      const c = errorCode(inner);
      if (c !== undefined) return c;
    }
  }
  if (err.cause !== undefined) return errorCode(err.cause);
  return undefined;
}

export function redact(text: string, secret: string | undefined): string {
  if (secret === undefined || secret.length < 4) return text;
  return text.split(secret).join('[redacted]');
}

export function clip(text: string, max = 300): string {
  return clipText(text, max, { oneLine: true });
}

function firstLine(text: string): string {
  return clip(text.split('\n')[0] ?? '', 200);
}


function formatMs(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  return s < 120 ? `${Math.round(s * 10) / 10} s` : `${Math.round(s / 60)} min`;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A 2xx body that should be JSON; anything else is a PermanentHttpError saying what came back. */
export function parseJsonBody(res: HttpResponse, service: Service): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    const start = clip(redact(res.body, res.secret), 60);
    throw new PermanentHttpError(
      `${service.label} at ${displayUrl(res.url)} answered HTTP ${res.status} with a body that is not JSON (${start === '' ? 'empty' : `starts "${start}"`}). Check that ${service.setting}.url points at the right kind of server.`,
      'malformed',
      displayUrl(res.url),
      res.status,
      {},
      res.attempts,
    );
  }
}

export function malformed(res: HttpResponse, service: Service, what: string): PermanentHttpError {
  return new PermanentHttpError(
    `${service.label} at ${displayUrl(res.url)} answered HTTP ${res.status} but ${what}. Check that ${service.setting}.url points at the right kind of server.`,
    'malformed',
    displayUrl(res.url),
    res.status,
    {},
    res.attempts,
  );
}
