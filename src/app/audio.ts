import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { Context } from 'hono';
import type { Store } from '../db/store.js';
import { playableRecording } from './pages/meeting.js';
import { audioMime } from '../audio/sniff.js';

// The recording of an imported meeting, by meeting ID: the path comes from the import job in the
// database, never from the request. One byte range per request (what <audio> asks for).

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` against a file of `size` bytes; null when not satisfiable; undefined when absent or not understood (whole file). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0) return null;
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return null;
  return { start, end };
}

export async function serveRecording(c: Context, store: Store): Promise<Response> {
  const meeting = await store.meetings.get(c.req.param('id')!);
  const file = playableRecording(meeting);
  if (!file) return c.text('This meeting has no recording that can be played (not imported from audio, or the file was moved).', 404);
  const headers: Record<string, string> = { 'Content-Type': audioMime(file.format), 'Accept-Ranges': 'bytes', 'Cache-Control': 'private, max-age=0' };
  const range = parseRange(c.req.header('range'), file.size);
  if (range === null) return new Response(null, { status: 416, headers: { ...headers, 'Content-Range': `bytes */${file.size}` } });
  const { start, end } = range ?? { start: 0, end: file.size - 1 };
  const length = file.size === 0 ? 0 : end - start + 1;
  headers['Content-Length'] = String(length);
  if (range) headers['Content-Range'] = `bytes ${start}-${end}/${file.size}`;
  if (c.req.method === 'HEAD' || length === 0) return new Response(null, { status: range ? 206 : 200, headers });
  const stream = Readable.toWeb(createReadStream(file.path, { start, end })) as ReadableStream<Uint8Array>;
  return new Response(stream, { status: range ? 206 : 200, headers });
}
