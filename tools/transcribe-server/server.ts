import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import PQueue from 'p-queue';
import { createLogger, resolveLogLevel, type Logger } from '../../src/log.js';
import { MultipartError, readMultipart } from '../../src/http/multipart.js';
import { formatSize } from '../../src/text/size.js';
import {
  DEBIAN_EN_US_MODEL,
  DecodeError,
  checkRecognizerInstalled,
  convertToRecognizerWav,
  recognize,
  wavDurationSeconds,
  type RecognizerModel,
  type Utterance,
} from './pocketsphinx.js';

// An OpenAI-compatible speech-to-text server for trying Syntheo out from a clone and for tests (not
// shipped in the package): Debian's pocketsphinx behind `POST /v1/audio/transcriptions`. English only;
// an old HMM recogniser. Uploads stream into a temp file (./multipart.ts), never held in memory.
// Run it with `npm run transcribe-server` (after `npm ci`).

export interface TranscribeServerOptions {
  port?: number;
  host?: string;
  /** Largest request body accepted; bigger uploads get HTTP 413. Default 512 MiB. */
  maxUploadBytes?: number;
  /** Recognitions run at once (each is one CPU-bound process). Default 1. */
  concurrency?: number;
  logger?: Logger;
  model?: RecognizerModel;
}

export interface TranscribeServer {
  url: string;
  close(): Promise<void>;
}

export const MODEL_ID = 'pocketsphinx-en-us';
const RESPONSE_FORMATS = ['json', 'text', 'verbose_json'] as const;
type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export async function startTranscribeServer(opts: TranscribeServerOptions = {}): Promise<TranscribeServer> {
  const log = opts.logger ?? createLogger('silent');
  const model = opts.model ?? DEBIAN_EN_US_MODEL;
  const maxUploadBytes = opts.maxUploadBytes ?? 512 * 1024 * 1024;
  await checkRecognizerInstalled(model);
  const queue = new PQueue({ concurrency: opts.concurrency ?? 1 });
  let nextId = 0;

  const server = createServer((req, res) => {
    const id = ++nextId;
    const started = Date.now();
    const reqLog = log.child({ req: id });
    handle(req, res, reqLog)
      .catch((err: unknown) => {
        if (err instanceof ApiError) {
          sendError(res, err);
          reqLog.info({ status: err.status, reason: err.message }, 'request rejected');
        } else if (err instanceof Error && err.name === 'AbortError') {
          reqLog.info('client went away; work abandoned');
        } else {
          reqLog.error({ err }, 'request failed');
          sendError(res, new ApiError(500, 'The transcription server failed while handling this request.', 'server_error'));
        }
      })
      .finally(() => reqLog.debug({ ms: Date.now() - started, method: req.method, url: req.url }, 'request done'));
  });
  // Uploads of long recordings over slow links take a while; the default is 5 minutes.
  server.requestTimeout = 60 * 60 * 1000;

  async function handle(req: IncomingMessage, res: ServerResponse, reqLog: Logger): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
    if (req.method === 'GET' && path === '/health') {
      return sendJson(res, 200, { status: 'ok', model: MODEL_ID, queued: queue.size, running: queue.pending });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return sendJson(res, 200, { object: 'list', data: [{ id: MODEL_ID, object: 'model', created: 0, owned_by: 'syntheo' }] });
    }
    if (path === '/v1/audio/transcriptions') {
      if (req.method !== 'POST') throw new ApiError(405, `Use POST for ${path}.`, 'invalid_request_error');
      return transcribe(req, res, reqLog);
    }
    throw new ApiError(404, `Unknown endpoint ${req.method} ${path}. This server serves POST /v1/audio/transcriptions, GET /v1/models and GET /health.`, 'invalid_request_error', 'not_found');
  }

  async function transcribe(req: IncomingMessage, res: ServerResponse, reqLog: Logger): Promise<void> {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const dir = await mkdtemp(join(tmpdir(), 'syntheo-transcribe-'));
    try {
      const form = await readMultipart(req, {
        maxBytes: maxUploadBytes,
        fileDestination: ({ field, index }) => (field === 'file' && index === 0 ? join(dir, 'upload') : null),
      }).catch((err: unknown) => {
        if (err instanceof MultipartError) {
          throw new ApiError(err.status, err.message, 'invalid_request_error', err.status === 413 ? 'file_too_large' : null);
        }
        throw err;
      });
      const field = (name: string): string | undefined => form.fields.get(name)?.[0]?.trim();
      const upload = form.files.find((f) => f.field === 'file');
      if (upload === undefined || upload.path === null) {
        throw new ApiError(400, "No audio: send the recording in a multipart form field named 'file'.", 'invalid_request_error', null, 'file');
      }
      if (upload.size === 0) throw new ApiError(400, 'The uploaded file is empty.', 'invalid_request_error', 'invalid_file', 'file');

      const format = (field('response_format') || 'json') as ResponseFormat;
      if (!RESPONSE_FORMATS.includes(format)) {
        throw new ApiError(400, `response_format '${format}' is not supported by this server. Use one of: ${RESPONSE_FORMATS.join(', ')}.`, 'invalid_request_error', 'unsupported_value', 'response_format');
      }
      const language = field('language');
      if (language !== undefined && language !== '' && !/^en(-|_|$)|^english$/i.test(language)) {
        throw new ApiError(400, `This server only recognises English; language '${language}' is not available.`, 'invalid_request_error', 'unsupported_value', 'language');
      }
      const granularities = [...(form.fields.get('timestamp_granularities[]') ?? []), ...(form.fields.get('timestamp_granularities') ?? [])];

      const wav = join(dir, 'audio.wav');
      const started = Date.now();
      const { utterances, duration } = await queue.add(
        async () => {
          await convertToRecognizerWav(upload.path!, wav, abort.signal).catch((err: unknown) => {
            if (err instanceof DecodeError) {
              throw new ApiError(400, `Could not decode the audio file (${err.message}). Send WAV, MP3, OGG, FLAC, WebM, M4A, MP4 or AAC audio.`, 'invalid_request_error', 'invalid_file_format', 'file');
            }
            throw err;
          });
          return { utterances: await recognize(wav, model, abort.signal), duration: await wavDurationSeconds(wav) };
        },
        { signal: abort.signal },
      );
      reqLog.info({ bytes: upload.size, audioSeconds: round(duration), ms: Date.now() - started, words: countWords(utterances), format }, 'transcribed');

      const text = utterances.map((u) => u.words.map((w) => w.word).join(' ')).join(' ');
      if (format === 'text') {
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`${text}\n`);
        return;
      }
      if (format === 'json') return sendJson(res, 200, { text });
      sendJson(res, 200, verboseJson(utterances, text, duration, granularities));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  log.info({ url, maxUpload: formatSize(maxUploadBytes) }, 'pocketsphinx transcription server listening');

  return {
    url,
    close: async () => {
      queue.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** OpenAI's `verbose_json`: seconds, `segments` unless only word timestamps were asked, `words` when asked. */
function verboseJson(utterances: Utterance[], text: string, duration: number, granularities: string[]): Record<string, unknown> {
  const wantWords = granularities.includes('word');
  const wantSegments = granularities.length === 0 || granularities.includes('segment');
  const body: Record<string, unknown> = { task: 'transcribe', language: 'english', duration: round(duration), text };
  if (wantSegments) {
    body.segments = utterances.map((u, id) => {
      const mean = u.words.reduce((s, w) => s + w.confidence, 0) / u.words.length;
      return {
        id,
        seek: 0,
        start: round(u.start),
        end: round(u.end),
        text: ` ${u.words.map((w) => w.word).join(' ')}`,
        tokens: [],
        temperature: 0,
        avg_logprob: round(Math.log(Math.max(mean, 1e-6))),
        compression_ratio: 1,
        no_speech_prob: 0,
      };
    });
  }
  if (wantWords) {
    body.words = utterances.flatMap((u) => u.words.map((w) => ({ word: w.word, start: round(w.start), end: round(w.end) })));
  }
  return body;
}

function countWords(utterances: Utterance[]): number {
  return utterances.reduce((n, u) => n + u.words.length, 0);
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

function sendError(res: ServerResponse, err: ApiError): void {
  sendJson(res, err.status, { error: { message: err.message, type: err.type, param: err.param, code: err.code } });
  // Read and drop the rest of a refused upload: an HTTP/1.1 client still sending it would see the
  // connection reset (EPIPE) instead of our answer if we closed now.
  const req = res.req;
  if (!req.complete) req.resume();
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '8178' },
      host: { type: 'string', default: '127.0.0.1' },
      'max-upload-mb': { type: 'string', default: '512' },
      concurrency: { type: 'string', default: '1' },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(
      'Usage: transcribe-server [--port 8178] [--host 127.0.0.1] [--max-upload-mb 512] [--concurrency 1]\n' +
        'An OpenAI-compatible transcription server (POST /v1/audio/transcriptions) over Debian pocketsphinx.\n' +
        'Prints its URL on stdout; logs go to stderr.\n',
    );
    return;
  }
  const port = Number(values.port);
  const maxMb = Number(values['max-upload-mb']);
  const concurrency = Number(values.concurrency);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`--port must be 0-65535, got "${values.port}".`);
  if (!(maxMb > 0)) throw new RangeError(`--max-upload-mb must be a positive number, got "${values['max-upload-mb']}".`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`--concurrency must be a positive integer, got "${values.concurrency}".`);
  const logger = createLogger(resolveLogLevel(values['log-level'], 'info'), 'transcribe-server');
  const server = await startTranscribeServer({ port, host: values.host, maxUploadBytes: Math.round(maxMb * 1024 * 1024), concurrency, logger });
  process.stdout.write(`${server.url}\n`);
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  main().catch((err: unknown) => {
    process.stderr.write(`transcribe-server: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
