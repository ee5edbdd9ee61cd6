import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MultipartError, readMultipart } from '../../src/http/multipart.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syntheo-multipart-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// File bytes that look like a delimiter's start, to catch a parser that cuts too early.
const FILE = Buffer.concat([Buffer.from('RIFF\r\n--\r\n-'), Buffer.alloc(3000, 7), Buffer.from('\r\n--notit\r\n')]);

async function encoded(): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append('model', 'whisper-1');
  form.append('timestamp_granularities[]', 'word');
  form.append('timestamp_granularities[]', 'segment');
  form.append('file', new Blob([FILE], { type: 'audio/wav' }), 'a "quoted" name.wav');
  const res = new Response(form);
  return { body: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type')! };
}

function fakeRequest(body: Buffer, chunk: number, contentType: string): IncomingMessage {
  const parts: Buffer[] = [];
  for (let i = 0; i < body.length; i += chunk) parts.push(body.subarray(i, i + chunk));
  return Object.assign(Readable.from(parts), { headers: { 'content-type': contentType } }) as unknown as IncomingMessage;
}

describe('readMultipart', () => {
  it.each([1, 2, 7, 61, 4096, 1 << 20])('gives the same fields and file whatever the chunking (%i-byte chunks)', async (chunk) => {
    const { body, contentType } = await encoded();
    const path = join(dir, `upload-${chunk}`);
    const got = await readMultipart(fakeRequest(body, chunk, contentType), { maxBytes: 1 << 20, fileDestination: () => path });
    expect(Object.fromEntries(got.fields)).toEqual({ model: ['whisper-1'], 'timestamp_granularities[]': ['word', 'segment'] });
    expect(got.files).toEqual([{ field: 'file', filename: 'a %22quoted%22 name.wav', contentType: 'audio/wav', size: FILE.length, path }]);
    expect(await readFile(path)).toEqual(FILE);
    expect(got.bytesRead).toBe(body.length);
  });

  it('counts a discarded file without writing it', async () => {
    const { body, contentType } = await encoded();
    const got = await readMultipart(fakeRequest(body, 100, contentType), { maxBytes: 1 << 20, fileDestination: () => null });
    expect(got.files[0]).toMatchObject({ size: FILE.length, path: null });
  });

  it('refuses bodies over maxBytes with 413', async () => {
    const { body, contentType } = await encoded();
    const err = await readMultipart(fakeRequest(body, 512, contentType), { maxBytes: 1000, fileDestination: () => null }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MultipartError);
    expect((err as MultipartError).status).toBe(413);
  });

  it.each([10, 100, 3100, 3300])('refuses a body cut %i bytes before its end, discarded or saved', async (cut) => {
    const { body, contentType } = await encoded();
    const truncated = body.subarray(0, body.length - cut);
    for (const fileDestination of [() => null, () => join(dir, `cut-${cut}`)]) {
      const err = await readMultipart(fakeRequest(truncated, 64, contentType), { maxBytes: 1 << 20, fileDestination }).catch((e: unknown) => e);
      expect((err as MultipartError).message).toBe('The multipart body ended early (no closing boundary).');
      expect((err as MultipartError).status).toBe(400);
    }
  });

  it('refuses an oversized field and too many parts with 400', async () => {
    const form = new FormData();
    form.append('prompt', 'x'.repeat(2000));
    const res = new Response(form);
    const body = Buffer.from(await res.arrayBuffer());
    const err = await readMultipart(fakeRequest(body, 512, res.headers.get('content-type')!), { maxBytes: 1 << 20, maxFieldBytes: 1000, fileDestination: () => null }).catch((e: unknown) => e);
    expect([(err as MultipartError).status, (err as MultipartError).message]).toEqual([400, 'Form field "prompt" is larger than 1000 bytes.']);

    const many = new FormData();
    for (let i = 0; i < 5; i++) many.append(`f${i}`, 'v');
    const res2 = new Response(many);
    const body2 = Buffer.from(await res2.arrayBuffer());
    const err2 = await readMultipart(fakeRequest(body2, 512, res2.headers.get('content-type')!), { maxBytes: 1 << 20, maxParts: 3, fileDestination: () => null }).catch((e: unknown) => e);
    expect([(err2 as MultipartError).status, (err2 as MultipartError).message]).toEqual([400, 'Too many form parts (more than 3).']);
  });

  it('refuses a non-multipart body with 415', async () => {
    const err = await readMultipart(fakeRequest(Buffer.from('{}'), 64, 'application/json'), { maxBytes: 1 << 20, fileDestination: () => null }).catch((e: unknown) => e);
    expect((err as MultipartError).status).toBe(415);
  });
});
