// The Store of one `syntheo mcp` process (src/mcp/store.ts): made once by the first request that needs
// it, the database opened (and created) by its first call, a failed open not remembered.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SyntheoError } from '../../src/errors.js';
import { createLogger } from '../../src/log.js';
import { StoreOnFirstUse } from '../../src/mcp/store.js';
import { tempDir } from '../support/db.js';

const logger = createLogger('silent');
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function workspace() {
  const { dir, cleanup } = tempDir();
  cleanups.push(cleanup);
  return dir;
}

describe('StoreOnFirstUse', () => {
  it('makes one Store for requests that arrive together, and creates the database with its first call', async () => {
    const path = join(workspace(), 'nested', 'syntheo.db');
    const holder = new StoreOnFirstUse(path, logger);
    cleanups.push(() => holder.close());
    const [a, b] = await Promise.all([holder.get(), holder.get()]);
    expect(a).toBe(b);
    expect(a.location).toBe(path);
    expect(existsSync(path)).toBe(false);
    expect(await a.meetings.list({}, { limit: 20, offset: 0 })).toEqual({ meetings: [], pagination: { offset: 0, limit: 20, returned: 0, total: 0 } });
    expect(existsSync(path)).toBe(true);
    expect(await holder.get()).toBe(a);
  });

  it('does not remember a failed open: the next call succeeds once the path is fixed', async () => {
    const dir = workspace();
    writeFileSync(join(dir, 'blocked'), 'a file where the folder should be');
    const holder = new StoreOnFirstUse(join(dir, 'blocked', 'syntheo.db'), logger);
    cleanups.push(() => holder.close());
    const store = await holder.get();
    const failed = await store.folders.paths().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(SyntheoError);
    expect((failed as SyntheoError).kind).toBe('storage');
    expect((failed as Error).message).toMatch(/^Cannot open the Syntheo database at .*blocked\/syntheo\.db \(E[A-Z]+\)\. Check that its folder/);
    rmSync(join(dir, 'blocked'));
    expect(await store.folders.paths()).toEqual([]);
    expect(existsSync(join(dir, 'blocked', 'syntheo.db'))).toBe(true);
  });

  it('closes the database and opens it again on the next request', async () => {
    const path = join(workspace(), 'syntheo.db');
    const holder = new StoreOnFirstUse(path, logger);
    cleanups.push(() => holder.close());
    const first = await holder.get();
    await first.folders.ensure('Archive');
    await holder.close();
    const second = await holder.get();
    expect(second).not.toBe(first);
    expect(await second.folders.paths()).toEqual(['Archive']);
  });
});
