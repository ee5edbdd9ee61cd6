import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { Busboy } from '@fastify/busboy';
import { formatSize } from '../text/size.js';

// multipart/form-data read as a stream with @fastify/busboy: file parts go straight to disk (or are
// only counted), so an upload of any size costs a few buffers. `Request.formData()` buffers everything.
// Busboy has no limit on the whole body: it is counted here, so an oversized upload gets HTTP 413.

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

const MAX_HEADER_BYTES = 16 * 1024;

export async function readMultipart(req: IncomingMessage, opts: MultipartOptions): Promise<MultipartResult> {
  const contentType = req.headers['content-type'];
  if (contentType === undefined || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) {
    throw new MultipartError('Expected a multipart/form-data request body.', 415);
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > opts.maxBytes) throw tooLarge(opts.maxBytes);
  const maxFieldBytes = opts.maxFieldBytes ?? 64 * 1024;
  const maxParts = opts.maxParts ?? 32;

  let boy: ReturnType<typeof Busboy>;
  try {
    boy = Busboy({ headers: { ...req.headers, 'content-type': contentType }, limits: { fieldSize: maxFieldBytes, parts: maxParts, headerSize: MAX_HEADER_BYTES } });
  } catch {
    throw new MultipartError('The multipart/form-data Content-Type has no usable boundary.', 400);
  }

  const result: MultipartResult = { fields: new Map(), files: [], bytesRead: 0 };
  const writes: Promise<void>[] = [];
  const outs: WriteStream[] = [];
  // The first failure (ours or busboy's) settles `failed`, which every wait below races against.
  let fail!: (err: Error) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => {});
  const finished = new Promise<void>((resolve) => boy.once('finish', resolve));

  boy.on('error', (err: Error) => fail(malformed(err)));
  boy.on('partsLimit', () => fail(new MultipartError(`Too many form parts (more than ${maxParts}).`, 400)));
  boy.on('field', (field: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
    if (valueTruncated) return fail(new MultipartError(`Form field "${field}" is larger than ${maxFieldBytes} bytes.`, 400));
    const list = result.fields.get(field) ?? [];
    list.push(value);
    result.fields.set(field, list);
  });
  boy.on('file', (field: string, stream: NodeJS.ReadableStream, filename: string | undefined, _encoding: string, mimeType: string) => {
    const name = filename ?? '';
    const path = opts.fileDestination({ field, filename: name, index: result.files.length });
    const file: MultipartFile = { field, filename: name, contentType: mimeType, size: 0, path };
    result.files.push(file);
    // A body cut short is reported on the open part's stream.
    stream.on('error', (err: Error) => fail(malformed(err)));
    stream.on('data', (chunk: Buffer) => (file.size += chunk.length));
    if (path === null) {
      stream.resume();
      return;
    }
    const out = createWriteStream(path, { flags: 'wx' });
    outs.push(out);
    const write = pipeline(stream, out);
    write.catch((err: Error) => fail(err));
    writes.push(write);
  });

  try {
    // destroyOnReturn: false keeps the socket open on an early throw, so a 413/400 can still be sent.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      result.bytesRead += chunk.length;
      if (result.bytesRead > opts.maxBytes) throw tooLarge(opts.maxBytes);
      if (!boy.write(chunk)) await Promise.race([once(boy, 'drain'), failed]);
    }
    boy.end();
    await Promise.race([finished, failed]);
    await Promise.race([Promise.all(writes), failed]);
    return result;
  } catch (err) {
    for (const out of outs) out.destroy();
    boy.destroy();
    throw err;
  }
}

function malformed(err: Error): MultipartError {
  if (/unexpected end/i.test(err.message)) return new MultipartError('The multipart body ended early (no closing boundary).', 400);
  return new MultipartError(`Malformed multipart body (${err.message}).`, 400);
}

function tooLarge(maxBytes: number): MultipartError {
  return new MultipartError(`The upload is larger than this server accepts (${formatSize(maxBytes)}).`, 413);
}

