// The MCP surface as clients see it: protocol versions, the exact tool set and templates, the
// instructions, stdout hygiene, a bad request or a broken database never killing the process.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, openTestDb } from '../support/db.js';
import { TEST_ENGINE, serve } from '../support/engine.js';
import { makeMeeting, makeSummary } from '../support/factories.js';
import { assertBuilt, call, callError, connectV1, connectV2, errorOf, serverArgs } from '../support/mcp.js';

const TOOL_NAMES = [
  'list_meetings',
  'list_folders',
  'get_meeting',
  'get_meeting_transcript',
  'get_recurring_meeting_history',
  'export_meeting',
  'propose_summary_edit',
  'propose_memo_edit',
  'list_proposals',
  'get_proposal',
  'decline_proposal',
  'import_recording',
  'get_recording_import',
  'search_transcripts',
];

type Param = 'string' | ['integer', number] | ['boolean', boolean] | ['enum', string[], string];
const page = (limit: number): Record<string, Param> => ({ limit: ['integer', limit], offset: ['integer', 0] });

/** Parameters, required ones and access of every tool, as the reference lists them (+ optional list_meetings filters). */
const REFERENCE: Record<string, { access: 'read' | 'write'; required: string[]; params: Record<string, Param> }> = {
  list_meetings: {
    access: 'read',
    required: [],
    params: { query: 'string', series_id: 'string', folder_path: 'string', from: 'string', to: 'string', participant: 'string', ...page(20) },
  },
  list_folders: { access: 'read', required: [], params: { query: 'string', ...page(100) } },
  get_meeting: { access: 'read', required: ['meeting_id'], params: { meeting_id: 'string' } },
  get_meeting_transcript: { access: 'read', required: ['meeting_id'], params: { meeting_id: 'string', offset: ['integer', 0], limit: ['integer', 200], word_timings: ['boolean', false] } },
  get_recurring_meeting_history: { access: 'read', required: ['meeting_id'], params: { meeting_id: 'string', ...page(20) } },
  export_meeting: { access: 'read', required: ['meeting_id'], params: { meeting_id: 'string' } },
  propose_summary_edit: { access: 'write', required: ['meeting_id', 'content'], params: { meeting_id: 'string', content: 'string', target_id: 'string' } },
  propose_memo_edit: { access: 'write', required: ['meeting_id', 'content'], params: { meeting_id: 'string', content: 'string' } },
  list_proposals: {
    access: 'read',
    required: [],
    params: { meeting_id: 'string', status: ['enum', ['pending', 'applied', 'declined', 'all'], 'pending'], ...page(20) },
  },
  get_proposal: { access: 'read', required: ['proposal_id'], params: { proposal_id: 'string' } },
  decline_proposal: { access: 'write', required: ['proposal_id'], params: { proposal_id: 'string' } },
  import_recording: { access: 'write', required: ['file_path'], params: { file_path: 'string', title: 'string', folder_path: 'string', request_key: 'string' } },
  get_recording_import: { access: 'read', required: ['job_id'], params: { job_id: 'string' } },
  // Beyond the reference: Syntheo's own read tool (issue 9).
  search_transcripts: {
    access: 'read',
    required: ['query'],
    params: { query: 'string', folder_path: 'string', series_id: 'string', from: 'string', to: 'string', participant: 'string', ...page(10) },
  },
};

let db: ReturnType<typeof openTestDb>;
let meetingId: string;
let location: string;

beforeAll(async () => {
  assertBuilt();
  db = openTestDb();
  meetingId = makeMeeting(db.sqlite, { title: 'Quarterly planning', folderPath: 'Projets' });
  makeSummary(db.sqlite, meetingId, { content: 'We agreed on the roadmap.' });
  location = (await serve(db.path)).location;
});
afterAll(() => db.cleanup());

describe('each kind of client lists the tools and calls a read tool', () => {
  it('v2 client, modern mode: 2026-07-28 through server/discover', async () => {
    const { client, close } = await connectV2(location, 'modern');
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getServerVersion()).toMatchObject({ name: 'syntheo', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
      const meeting = await call(client, 'get_meeting', { meeting_id: meetingId });
      expect(meeting.title).toBe('Quarterly planning');
      expect(meeting.summaries[0].content).toBe('We agreed on the roadmap.');
    } finally {
      await close();
    }
  });

  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26']) {
    it(`v2 client, legacy initialize at ${version}`, async () => {
      const { client, close } = await connectV2(location, 'legacy', { protocolVersion: version });
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(version);
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(TOOL_NAMES.length);
        const list = await call(client, 'list_meetings', {});
        expect(list.meetings.map((m: { title: string }) => m.title)).toEqual(['Quarterly planning']);
        expect(list.meetings[0].folder_path).toBe('Projets');
      } finally {
        await close();
      }
    });
  }

  it('v1 @modelcontextprotocol/sdk client', async () => {
    const { client, close } = await connectV1(location);
    try {
      expect(client.getServerVersion()?.name).toBe('syntheo');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...TOOL_NAMES].sort());
      const meeting = await call(client, 'get_meeting', { meeting_id: meetingId });
      expect(meeting.title).toBe('Quarterly planning');
      const error = await callError(client, 'get_meeting', { meeting_id: 'mtg_missing' });
      expect(error.code).toBe(-32602);
    } finally {
      await close();
    }
  });
});

describe('what the server advertises', () => {
  let connection: Awaited<ReturnType<typeof connectV2>>;
  beforeAll(async () => {
    connection = await connectV2(location, 'legacy');
  });
  afterAll(() => connection.close());

  it('pins the exact tool set, parameters, defaults, annotations and output schemas', async () => {
    const { tools } = await connection.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    for (const tool of tools) {
      const expected = REFERENCE[tool.name]!;
      const properties = tool.inputSchema.properties as Record<string, Record<string, unknown>>;
      expect(Object.keys(properties).sort(), tool.name).toEqual(Object.keys(expected.params).sort());
      expect([...(tool.inputSchema.required ?? [])].sort(), tool.name).toEqual([...expected.required].sort());
      for (const [name, param] of Object.entries(expected.params)) {
        const schema = properties[name]!;
        expect(schema.description, `${tool.name}.${name} has a description`).toEqual(expect.any(String));
        if (param === 'string') expect(schema.type, `${tool.name}.${name}`).toBe('string');
        else if (param[0] === 'integer') {
          expect(schema, `${tool.name}.${name}`).toMatchObject({ type: 'integer', default: param[1] });
          // Clamped, never rejected: no bounds a client could enforce.
          expect(Object.keys(schema).filter((k) => /min|max/i.test(k)), `${tool.name}.${name}`).toEqual([]);
        } else if (param[0] === 'boolean') expect(schema, `${tool.name}.${name}`).toMatchObject({ type: 'boolean', default: param[1] });
        else expect(schema, `${tool.name}.${name}`).toMatchObject({ type: 'string', enum: param[1], default: param[2] });
      }
      if (expected.access === 'read') expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, idempotentHint: true, openWorldHint: false });
      else expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: false, destructiveHint: false });
      expect(tool.title, tool.name).toEqual(expect.any(String));
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
  });

  it('pins the resource templates and their MIME types', async () => {
    const { resourceTemplates } = await connection.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType])).toEqual([
      ['syntheo://meetings/{meeting_id}', 'text/markdown'],
      ['syntheo://meetings/{meeting_id}/transcript{?offset,limit,word_timings}', 'text/plain'],
      ['syntheo://series/{series_id}', 'text/markdown'],
    ]);
  });

  it('tells the model where IDs come from, what an empty list means and that proposals are only staged', () => {
    const instructions = connection.client.getInstructions() ?? '';
    expect(instructions).toMatch(/IDs .*come from tool results/);
    expect(instructions).toMatch(/empty list means nothing matched/);
    expect(instructions).toMatch(/never applies it/);
  });

  it('rejects a wrong type with -32602 and an unknown tool with -32602', async () => {
    expect(await callError(connection.client, 'list_meetings', { limit: '5' })).toMatchObject({ code: -32602, message: expect.stringContaining('limit') });
    expect(await callError(connection.client, 'get_meeting', {})).toMatchObject({ code: -32602, message: expect.stringContaining('meeting_id') });
    expect(await callError(connection.client, 'list_proposals', { status: 'done' })).toMatchObject({ code: -32602, message: expect.stringContaining('status') });
    expect(await callError(connection.client, 'no_such_tool', {})).toMatchObject({ code: -32602, message: expect.stringContaining('no_such_tool') });
  });
});

it('records the client that made a proposal, modern and legacy', async () => {
  const modern = await connectV2(location, 'modern', { clientInfo: { name: 'claude-desktop-test', version: '9.1.0' } });
  const legacy = await connectV2(location, 'legacy', { clientInfo: { name: 'old-client', version: '0.3.0' } });
  try {
    const a = await call(modern.client, 'propose_memo_edit', { meeting_id: meetingId, content: '# Notes\n\nFrom a modern client.\n' });
    const b = await call(legacy.client, 'propose_memo_edit', { meeting_id: meetingId, content: '# Notes\n\nFrom a legacy client.\n' });
    expect(a.proposed_by).toBe('claude-desktop-test/9.1.0');
    expect(b.proposed_by).toBe('old-client/0.3.0');
    expect((await call(legacy.client, 'get_proposal', { proposal_id: a.id })).proposed_by).toBe('claude-desktop-test/9.1.0');
  } finally {
    await Promise.all([modern.close(), legacy.close()]);
  }
});

/** Raw stdio: every line the server writes, to check that stdout carries JSON-RPC and nothing else. */
function rawSession(args: string[]) {
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    send: (line: string) => child.stdin.write(`${line}\n`),
    lines: () => stdout.split('\n').filter((l) => l !== ''),
    stderr: () => stderr,
    waitFor: async (predicate: () => boolean) => {
      for (let i = 0; i < 300 && !predicate(); i++) await new Promise((r) => setTimeout(r, 20));
      if (!predicate()) throw new Error(`timed out; stdout so far:\n${stdout}\nstderr:\n${stderr}`);
    },
    end: () => {
      child.stdin.end();
      return exited;
    },
  };
}

const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const initialize = (id: number, protocolVersion = '2025-11-25') => rpc(id, 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1' } });

it('writes nothing but JSON-RPC on stdout at trace level, survives bad requests and exits when stdin closes', async () => {
  const session = rawSession(serverArgs(location, ['--log-level', 'trace']));
  session.send(initialize(1));
  session.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  session.send(rpc(2, 'tools/list'));
  session.send('this is not json');
  session.send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_meetings","arguments":{"limit":"many"}}}');
  session.send(rpc(4, 'no/such/method'));
  session.send(rpc(5, 'tools/call', { name: 'get_meeting', arguments: { meeting_id: 'mtg_nope' } }));
  session.send(rpc(6, 'tools/call', { name: 'list_meetings', arguments: { query: 'quarterly' } }));
  session.send(rpc(7, 'resources/read', { uri: 'not a uri' }));
  session.send(rpc(8, 'tools/call', { name: 'list_meetings', arguments: [] }));
  const ids = [1, 2, 3, 4, 5, 6, 7, 8];
  await session.waitFor(() => ids.every((id) => session.lines().some((l) => l.includes(`"id":${id}`))));
  const messages = session.lines().map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result?: { structuredContent?: { meetings: { title: string }[] } }; error?: { code: number } });
  for (const m of messages) expect(m.jsonrpc).toBe('2.0');
  const byId = new Map(messages.map((m) => [m.id, m]));
  expect(byId.get(3)!.error!.code).toBe(-32602);
  expect(byId.get(4)!.error!.code).toBe(-32601);
  expect(byId.get(5)!.error!.code).toBe(-32602);
  expect(byId.get(6)!.result!.structuredContent!.meetings.map((m) => m.title)).toEqual(['Quarterly planning']);
  expect(byId.get(7)!.error!.code).toBe(-32602);
  expect(byId.get(8)!.error!.code).toBe(-32602);
  // The logs went to stderr, as pino JSON lines.
  expect(session.stderr()).toContain('"msg":"tool call"');
  expect(await session.end()).toBe(0);
});

// SQLite files: created on first use, or not a database (PostgreSQL's own: test/postgres/open.test.ts).
describe.skipIf(TEST_ENGINE === 'postgres')('the database', () => {
  it('is not opened (nor created) by initialize, discover or tools/list', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'nested', 'syntheo.db');
      const session = rawSession(serverArgs(path));
      session.send(initialize(1));
      session.send(rpc(2, 'tools/list'));
      await session.waitFor(() => session.lines().length === 2);
      expect(existsSync(path)).toBe(false);
      session.send(rpc(3, 'tools/call', { name: 'list_meetings', arguments: {} }));
      await session.waitFor(() => session.lines().length === 3);
      // Created on first use, empty: a brand-new machine works with no set-up.
      expect(JSON.parse(session.lines()[2]!).result.structuredContent).toEqual({ meetings: [], pagination: { offset: 0, limit: 20, returned: 0, total: 0 } });
      expect(existsSync(path)).toBe(true);
      expect(await session.end()).toBe(0);

      const probe = rawSession(serverArgs(join(dir, 'probe.db')));
      const envelope = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
      probe.send(rpc(1, 'server/discover', { _meta: envelope }));
      await probe.waitFor(() => probe.lines().length === 1);
      expect(JSON.parse(probe.lines()[0]!).result.supportedVersions).toEqual(['2026-07-28']);
      expect(await probe.end()).toBe(0);
      expect(existsSync(join(dir, 'probe.db'))).toBe(false);
    } finally {
      cleanup();
    }
  });

  it('that cannot be opened gives -32603 with a clear message, and the server stays up', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const notSqlite = join(dir, 'notes.db');
      writeFileSync(notSqlite, 'these are my meeting notes, not a database\n'.repeat(100));
      const blockedDir = join(dir, 'file-not-dir');
      writeFileSync(blockedDir, 'x');
      for (const [path, expected] of [
        [notSqlite, /is not a Syntheo database/],
        [join(blockedDir, 'syntheo.db'), /Cannot open the Syntheo database at .*file-not-dir\/syntheo\.db \(E[A-Z]+\)\. Check that its folder/],
      ] as const) {
        const { client, close } = await connectV2(path, 'legacy');
        try {
          const first = await callError(client, 'list_meetings', {});
          expect(first.code).toBe(-32603);
          expect(first.message).toMatch(expected);
          expect((await client.listTools()).tools).toHaveLength(TOOL_NAMES.length);
          expect((await callError(client, 'get_meeting', { meeting_id: 'mtg_x' })).code).toBe(-32603);
          expect((await errorOf(client.readResource({ uri: 'syntheo://meetings/mtg_x' }))).code).toBe(-32603);
        } finally {
          await close();
        }
      }
    } finally {
      cleanup();
    }
  });
});
