import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { start } from './cli.js';
import { openTestDb } from '../support/db.js';
import { makeMeeting } from '../support/factories.js';

let db: ReturnType<typeof openTestDb>;
beforeAll(() => {
  db = openTestDb();
  makeMeeting(db.sqlite, { title: 'Seen through Studio' });
});
afterAll(() => db.cleanup());

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

it('runs drizzle-kit studio on the same database file, on 127.0.0.1, and stops on SIGINT', async () => {
  const port = await freePort();
  const cli = start(['--db', db.path, 'studio', '--port', String(port)]);
  let out = '';
  cli.stdout!.on('data', (d: string) => (out += d));
  for (let i = 0; i < 200 && !out.includes('Drizzle Studio is up and running'); i++) await sleep(100);
  expect(out).toContain(`Drizzle Studio is up and running on https://local.drizzle.studio?port=${port}`);

  // Studio's own query endpoint answers from our database.
  const response = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'proxy', data: { sql: 'SELECT title FROM meetings', method: 'all', mode: 'object' } }),
  });
  expect(await response.json()).toEqual([{ title: 'Seen through Studio' }]);

  cli.kill('SIGINT');
  const r = await cli.result;
  expect(r.code).toBe(0);
  await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
});
