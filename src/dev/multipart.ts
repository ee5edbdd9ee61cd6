import { createWriteStream, type WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { IncomingMessage } from 'node:http';

// A streaming multipart/form-data reader: file parts go straight to disk (or are only counted),
// so an upload of any size costs a few buffers of memory. `Request.formData()` buffers everything.

export interface MultipartFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  /** Where the bytes were written; null when the caller chose to discard them. */
  path: string | null;
}

export interface MultipartResult {
  fields: Map<string, string[]>;
  files: MultipartFile[];
  bytesRead: number;
}

export interface MultipartOptions {
  /** Total request body bytes accepted; more raises MultipartError with status 413. */
  maxBytes: number;
  /** Where to write a file part; return null to count and discard it. */
  fileDestination: (part: { field: string; filename: string; index: number }) => string | null;
  maxFieldBytes?: number;
  maxParts?: number;
}

export class MultipartError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413 | 415,
  ) {
    super(message);
    this.name = 'MultipartError';
  }
}

export function multipartBoundary(contentType: string | undefined): string {
  if (contentType === undefined || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) {
    throw new MultipartError('Expected a multipart/form-data request body.', 415);
  }
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (boundary === undefined || boundary.length > 200) {
    throw new MultipartError('The multipart/form-data Content-Type has no usable boundary.', 400);
  }
  return boundary;
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const MAX_HEADER_BYTES = 16 * 1024;

type State = 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done';

interface OpenPart {
  field: string;
  filename: string | null;
  contentType: string;
  size: number;
  chunks: Buffer[];
  out: WriteStream | null;
  path: string | null;
}

export async function readMultipart(req: IncomingMessage, opts: MultipartOptions): Promise<MultipartResult> {
  const boundary = multipartBoundary(req.headers['content-type']);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > opts.maxBytes) throw tooLarge(opts.maxBytes);

  const maxFieldBytes = opts.maxFieldBytes ?? 64 * 1024;
  const maxParts = opts.maxParts ?? 32;
  // The body starts with "--boundary" and no CRLF: prefixing one makes every delimiter look alike.
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const result: MultipartResult = { fields: new Map(), files: [], bytesRead: 0 };
  let buf: Buffer = CRLF;
  let state: State = 'preamble';
  let part: OpenPart | null = null;
  let parts = 0;

  const write = async (data: Buffer): Promise<void> => {
    if (part === null || data.length === 0) return;
    part.size += data.length;
    if (part.filename === null) {
      if (part.size > maxFieldBytes) throw new MultipartError(`Form field "${part.field}" is larger than ${maxFieldBytes} bytes.`, 400);
      part.chunks.push(data);
    } else if (part.out !== null) {
      if (!part.out.write(data)) await drained(part.out);
      if (part.out.errored) throw part.out.errored;
    }
  };

  const finishPart = async (): Promise<void> => {
    if (part === null) return;
    const done = part;
    part = null;
    if (done.filename === null) {
      const list = result.fields.get(done.field) ?? [];
      list.push(Buffer.concat(done.chunks).toString('utf8'));
      result.fields.set(done.field, list);
      return;
    }
    if (done.out !== null) {
      done.out.end();
      await finished(done.out);
    }
    result.files.push({ field: done.field, filename: done.filename, contentType: done.contentType, size: done.size, path: done.path });
  };

  const startPart = (rawHeaders: string): void => {
    parts += 1;
    if (parts > maxParts) throw new MultipartError(`Too many form parts (more than ${maxParts}).`, 400);
    const headers = new Map<string, string>();
    for (const line of rawHeaders.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition') ?? '';
    const field = dispositionParam(disposition, 'name');
    if (field === null) throw new MultipartError('A form part has no Content-Disposition name.', 400);
    const filename = dispositionParam(disposition, 'filename');
    const contentType = headers.get('content-type') ?? (filename === null ? 'text/plain' : 'application/octet-stream');
    let out: WriteStream | null = null;
    let path: string | null = null;
    if (filename !== null) {
      path = opts.fileDestination({ field, filename, index: result.files.length });
      if (path !== null) {
        out = createWriteStream(path, { flags: 'wx' });
        out.on('error', () => {}); // surfaced through `errored` / finished()
      }
    }
    part = { field, filename, contentType, size: 0, chunks: [], out, path };
  };

  try {
    // destroyOnReturn: false keeps the socket open on an early throw, so a 413/400 can still be sent.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      result.bytesRead += chunk.length;
      if (result.bytesRead > opts.maxBytes) throw tooLarge(opts.maxBytes);
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);

      // Each pass consumes what it can; `continue` re-examines the rest under the new state.
      for (;;) {
        if (state === 'done') {
          buf = Buffer.alloc(0); // epilogue is ignored
          break;
        }
        if (state === 'preamble' || state === 'body') {
          const at = buf.indexOf(delimiter);
          if (at === -1) {
            // Keep a tail that could be the start of a delimiter split across chunks.
            const keep = Math.min(buf.length, delimiter.length - 1);
            if (state === 'body') await write(buf.subarray(0, buf.length - keep));
            buf = buf.subarray(buf.length - keep);
            break;
          }
          if (state === 'body') {
            await write(buf.subarray(0, at));
            await finishPart();
          }
          buf = buf.subarray(at + delimiter.length);
          state = 'after-delimiter';
          continue;
        }
        if (state === 'after-delimiter') {
          if (buf.length < 2) break;
          if (buf[0] === 0x2d && buf[1] === 0x2d) {
            state = 'done';
            continue;
          }
          // RFC 2046 allows transport padding (spaces/tabs) before the CRLF.
          const eol = buf.indexOf(CRLF);
          if (eol === -1) {
            if (buf.length > 256) throw new MultipartError('Malformed multipart body (bad delimiter line).', 400);
            break;
          }
          if (buf.subarray(0, eol).toString('latin1').trim() !== '') {
            throw new MultipartError('Malformed multipart body (bad delimiter line).', 400);
          }
          buf = buf.subarray(eol + 2);
          state = 'headers';
          continue;
        }
        // state === 'headers'
        const end = buf.indexOf(HEADER_END);
        const headerEnd = buf.length >= 2 && buf[0] === 0x0d && buf[1] === 0x0a ? 0 : end;
        if (headerEnd === -1) {
          if (buf.length > MAX_HEADER_BYTES) throw new MultipartError('A form part has oversized headers.', 400);
          break;
        }
        startPart(buf.subarray(0, headerEnd).toString('utf8'));
        buf = buf.subarray(headerEnd + (headerEnd === 0 ? 2 : 4));
        state = 'body';
      }
    }
    if (state !== 'done') throw new MultipartError('The multipart body ended early (no closing boundary).', 400);
    return result;
  } catch (err) {
    const open = part as OpenPart | null;
    open?.out?.destroy();
    throw err;
  }
}

function drained(stream: WriteStream): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

function tooLarge(maxBytes: number): MultipartError {
  return new MultipartError(`The upload is larger than this server accepts (${formatBytes(maxBytes)}).`, 413);
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;
  if (n >= 1024) return `${Math.round((n / 1024) * 10) / 10} KiB`;
  return `${n} bytes`;
}

function dispositionParam(disposition: string, name: string): string | null {
  const re = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, 'i');
  const m = re.exec(disposition);
  if (m === null) return null;
  const quoted = m[1];
  return quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (m[2] ?? '').trim();
}
