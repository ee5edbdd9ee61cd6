// What `syntheo mcp` loads before the first request that needs data: initialize, tools/list and
// resources/templates/list answer without the database engine (better-sqlite3, the SQLite Store, the
// query modules that hold SQL); the first tools/call loads it. Every client spawns the server (modern
// ones twice), so this is its start-up cost.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb } from '../support/db.js';
import { makeMeeting } from '../support/factories.js';
import { RawSession } from '../reliability/support/sessions.js';

const TRACER = fileURLToPath(new URL('./trace-loads.mjs', import.meta.url));

let db: ReturnType<typeof openTestDb>;
beforeAll(() => {
  db = openTestDb();
  makeMeeting(db.sqlite, { title: 'Quarterly planning' });
});
afterAll(() => db.cleanup());

/** The modules a session loaded (paths relative to the package or node_modules), once it has exited. */
async function loadedBy(name: string, steps: (session: RawSession) => Promise<void>): Promise<string[]> {
  const trace = join(db.dir, `${name}.loads`);
  const session = new RawSession(db.path, [], { NODE_OPTIONS: `--import ${TRACER}`, TRACE_LOADS_FILE: trace });
  await session.initialize();
  await steps(session);
  session.child.stdin!.end();
  expect((await session.exited).code).toBe(0);
  const modules = readFileSync(trace, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => decodeURIComponent(line.replace(/^(esm|cjs) (file:\/\/)?/, '')));
  return [...new Set(modules.map((m) => m.replace(/^.*\/node_modules\//, 'node_modules/').replace(/^.*\/dist\//, 'dist/')))];
}

// The engine: the driver, the SQLite Store and statement cache, and the query modules holding SQL
// (pagination, types and unicode are pure leaves the schemas use).
const ENGINE = /^(node_modules\/better-sqlite3\/|dist\/src\/db\/(sqlite\/store|statements|queries\/(?!(pagination|types|unicode)\.js)[^/]+)\.js$)/;

describe('syntheo mcp start-up', () => {
  it('answers initialize, tools/list and resources/templates/list without loading the database engine', async () => {
    const loaded = await loadedBy('listing', async (s) => {
      expect((await s.request('tools/list')).result).toMatchObject({ tools: expect.arrayContaining([expect.objectContaining({ name: 'list_meetings' })]) });
      expect((await s.request('resources/templates/list')).result).toMatchObject({ resourceTemplates: expect.arrayContaining([expect.objectContaining({ name: 'meeting' })]) });
    });
    // The trace saw the server: its tools and the MCP SDK.
    expect(loaded).toContain('dist/src/mcp/tools/install.js');
    expect(loaded.filter((m) => ENGINE.test(m))).toEqual([]);
  });

  it('loads the engine with the first call that reads data', async () => {
    const loaded = await loadedBy('calling', async (s) => {
      const reply = await s.request('tools/call', { name: 'list_meetings', arguments: {} });
      expect(reply.result).toMatchObject({ structuredContent: { meetings: [{ title: 'Quarterly planning' }] } });
    });
    expect(loaded).toEqual(expect.arrayContaining(['dist/src/db/sqlite/store.js', 'dist/src/db/queries/meetings.js', expect.stringMatching(/^node_modules\/better-sqlite3\//)]));
  });
});
