// Pure pieces of recording imports shared by every engine and by their callers (no SQL here).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** sha256 of a file, read streaming (never whole in memory). */
export async function sha256File(path: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20, signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
