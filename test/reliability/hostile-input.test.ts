// Hostile input: property-based runs over every MCP tool's arguments and over raw stdin. Whatever
// comes in, only results, -32602 / -32603 or JSON-RPC protocol errors come back, the process stays
// up, and its stdout carries nothing but JSON-RPC. One server process per property run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROPOSAL_BYTES } from '../../src/db/queries/proposals.js';
import { openTestDb } from '../support/db.js';
import { STACK_LINE } from '../cli/cli.js';
import { keepWorkerAlive, seed, writeWav, type Seeded } from './support/fixtures.js';
import { RawSession, connectTapped, isAlive, type TappedClient } from './support/sessions.js';
import { fcParams, timeoutMs } from './support/soak.js';

let db: ReturnType<typeof openTestDb>;
let ids: Seeded;
let stopWorker: () => void;
let files: string[];

beforeAll(() => {
  db = openTestDb();
  ids = seed(db.sqlite);
  stopWorker = keepWorkerAlive(db.sqlite);
  const dir = join(db.dir, 'files');
  mkdirSync(dir);
  files = [writeWav(join(dir, 'ok.wav')), join(dir, 'missing.wav'), dir, '/dev/zero', '/dev/null', '/proc/self/mem', '/etc/shadow', writeText(join(dir, 'text.wav'), 'hello\n'.repeat(100))];
});
afterAll(() => {
  stopWorker?.();
  db?.cleanup();
});

function writeText(path: string, text: string): string {
  writeFileSync(path, text);
  return path;
}

// ---- values ---------------------------------------------------------------------------------------

const BIG = [
  'x'.repeat(200_000),
  '%_'.repeat(50_000),
  'é'.repeat(100_000),
  '\u0000'.repeat(1_000),
  '🎉'.repeat(20_000),
  // One byte over the limit of a proposal's content.
  'a'.repeat(MAX_PROPOSAL_BYTES + 1),
];

/** Big values travel through fast-check as short tokens (counterexamples stay readable) and are expanded when sent. */
const bigToken = (i: number) => `<<big:${i}>>`;
function expand<T>(value: T): T {
  if (typeof value === 'string') return (value.replace(/<<big:(\d+)>>/g, (_, i: string) => BIG[Number(i)]!) as unknown) as T;
  if (Array.isArray(value)) return value.map(expand) as unknown as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expand(v)])) as T;
  return value;
}

const NASTY = [
  '', ' ', '\n', '\t', '%', '_', '%%', '_%_', '\\', '\\%', "'", '"', '""', "' OR 1=1 --", '"; DROP TABLE meetings; --', '\u0000', 'abc\u0000def', '\u0000%',
  '*', 'NEAR(a b)', 'a AND b', '"unterminated', '-', '^', 'budget*', '(', ')', '{name email} : x', '\ud800', '\udfff\ud800', 'a\ud83d', '\u202eevil', '\ufeff', '\u200b',
  '../../etc/passwd', '/dev/zero', '~', '~/x.wav', 'mtg_', 'prp_', 'job_', 'sum_', 'ser_', 'Projets/', '/Projets', 'Projets//Lancement', 'PROJETS', 'projets/lancement',
  '2026-13-45', '2026-02-30', '9999-12-31T23:59:59Z', '0000-01-01', 'now', '1e999', 'NaN', '-1', 'null', 'undefined', '[object Object]', '__proto__', 'constructor',
];

const nastyString = (): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string() },
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
    { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
    { weight: 2, arbitrary: fc.array(fc.constantFrom('%', '_', "'", '"', '\\', '*', ' ', 'a', 'é', '\u0000'), { maxLength: 12 }).map((cs) => cs.join('')) },
    { weight: 1, arbitrary: fc.constantFrom(...BIG.map((_, i) => bigToken(i))) },
  );

const nastyNumber = (): fc.Arbitrary<number> =>
  fc.oneof(
    fc.integer(),
    // NaN and ±Infinity become null in JSON: a wrong type on the wire.
    fc.double(),
    fc.constantFrom(0, -0, -1, 1, 2.5, -2.5, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, 2 ** 63, -(2 ** 53), 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER),
  );

const anyJson = (): fc.Arbitrary<unknown> => fc.oneof(fc.constantFrom(null, true, false, [], {}, [null], { '': '' }), fc.jsonValue({ maxDepth: 2 }), nastyNumber(), nastyString());

interface ToolInfo {
  name: string;
  inputSchema: { properties?: Record<string, { type?: string; enum?: string[] }>; required?: string[] };
}

/** Arguments for one tool: its own parameters with hostile values (mostly of the right type), sometimes missing, plus unknown keys. */
function argumentsFor(tool: ToolInfo): fc.Arbitrary<Record<string, unknown>> {
  const knownIds: Record<string, string[]> = {
    meeting_id: ids.meetings,
    proposal_id: ids.proposals,
    target_id: ids.summaries,
    series_id: [ids.series],
    folder_path: ids.folders,
    file_path: files,
  };
  const props = Object.entries(tool.inputSchema.properties ?? {});
  const value = (name: string, schema: { type?: string; enum?: string[] }): fc.Arbitrary<unknown> => {
    const rightType: fc.Arbitrary<unknown> = schema.enum
      ? fc.oneof(fc.constantFrom(...schema.enum), nastyString())
      : schema.type === 'integer' || schema.type === 'number'
        ? nastyNumber()
        : knownIds[name]
          ? fc.oneof(fc.constantFrom(...knownIds[name]!), nastyString())
          : nastyString();
    return fc.oneof({ weight: 5, arbitrary: rightType }, { weight: 1, arbitrary: anyJson() });
  };
  const record = (requiredKeys: string[]) => fc.record(Object.fromEntries(props.map(([n, s]) => [n, value(n, s)])), { requiredKeys });
  const unknownKeys = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString', 'limit ', 'LIMIT')), anyJson(), { maxKeys: 2 });
  return fc
    .tuple(fc.oneof({ weight: 8, arbitrary: record(tool.inputSchema.required ?? []) }, { weight: 1, arbitrary: record([]) }), fc.option(unknownKeys, { freq: 4 }))
    .map(([args, extra]) => ({ ...(extra ?? {}), ...args }));
}

// ---- checks -----------------------------------------------------------------------------------------

interface Outcome {
  ok: boolean;
  code?: number;
  message?: string;
  kind?: string;
}

/** The SDK client's own complaints (output schema mismatch) are failures of the server, not answers. */
const CLIENT_SIDE = /Structured content does not match|Failed to validate structured content|did not return structured content/;

async function attempt(session: TappedClient, name: string, args: Record<string, unknown>): Promise<Outcome> {
  try {
    const result = (await session.client.callTool({ name, arguments: expand(args) })) as { isError?: boolean; structuredContent?: unknown; content?: { type: string; text?: string }[] };
    expect(result.isError, `${name} returned isError`).toBeFalsy();
    const texts = (result.content ?? []).filter((c) => c.type === 'text');
    expect(texts).toHaveLength(1);
    // The text block is a compact rendering of the answer (issue 12), not a copy of the JSON.
    expect(texts[0]!.text!.trim()).not.toBe('');
    expect(texts[0]!.text!.trimStart().startsWith('{')).toBe(false);
    return { ok: true };
  } catch (error) {
    const e = error as { code?: number; message?: string; data?: { kind?: string } };
    if (typeof e.code !== 'number') throw error;
    return { ok: false, code: e.code, message: e.message ?? '', kind: e.data?.kind };
  }
}

function checkError(name: string, args: Record<string, unknown>, outcome: Outcome): void {
  const what = `${name} ${JSON.stringify(args).slice(0, 300)} -> ${outcome.code} ${outcome.message?.slice(0, 300)}`;
  expect(outcome.message, what).not.toMatch(CLIENT_SIDE);
  expect([-32602, -32603], what).toContain(outcome.code);
  expect(outcome.message!.length, what).toBeGreaterThan(10);
  // Short enough to read: a 200 KB argument is not echoed back.
  expect(outcome.message!.length, what).toBeLessThan(1_500);
  expect(outcome.message, what).not.toMatch(STACK_LINE);
  expect(outcome.message, what).not.toMatch(/SQLITE_|SqliteError|sqlite3|SELECT |INSERT |\bat .+\.js:\d+/);
  // The database is healthy: a hostile argument is a domain error, never a storage failure nor a bug.
  expect(['storage', 'internal'], what).not.toContain(outcome.kind);
  expect(outcome.message, what).not.toMatch(/Unexpected internal error/);
}

describe('every MCP tool, hostile arguments (fast-check, SDK v2 client, 2026-07-28)', () => {
  it(
    'answers each call with a result, -32602 or -32603 and a readable message; the process stays up and stdout stays JSON-RPC',
    async () => {
      const session = await connectTapped(db.path, { mode: 'modern', args: ['--log-level', 'trace'] });
      try {
        const { tools } = await session.client.listTools();
        expect(tools.length).toBe(14);
        const seen = new Map<string, { ok: number; errors: number }>();
        const call = fc.constantFrom(...(tools as ToolInfo[])).chain((tool) => argumentsFor(tool).map((args) => ({ name: tool.name, args })));
        await fc.assert(
          fc.asyncProperty(call, async ({ name, args }) => {
            const outcome = await attempt(session, name, args);
            const tally = seen.get(name) ?? { ok: 0, errors: 0 };
            if (outcome.ok) tally.ok++;
            else {
              tally.errors++;
              checkError(name, args, outcome);
            }
            seen.set(name, tally);
          }),
          fcParams(400),
        );
        // Every tool was reached, and hostile input did not only ever bounce off the schema.
        expect([...seen.keys()].sort()).toEqual(tools.map((t) => t.name).sort());
        expect([...seen.values()].reduce((n, t) => n + t.ok, 0)).toBeGreaterThan(20);
        expect(isAlive(session.pid)).toBe(true);
        expect((await session.client.listTools()).tools).toHaveLength(14);
        expect(session.stdout.violations).toEqual([]);
        expect(session.protocolErrors).toEqual([]);
        expect(session.stdout.lineCount).toBeGreaterThan(400);
      } finally {
        await session.close();
      }
    },
    timeoutMs(90_000),
  );
});

// ---- raw stdin ----------------------------------------------------------------------------------

/**
 * One line on stdin, built when it is sent: `id` is fresh for each send (shrinking replays lines), and
 * `expectId` is the id a response must carry when the line is a request with a valid id.
 */
type Line = (id: number) => { text: string; expectId?: number | string };

const validIdRequest = (): fc.Arbitrary<Line> =>
  fc
    .tuple(
      fc.boolean(),
      fc.constantFrom('tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'ping', 'prompts/list', 'no/such/method', 'initialize', 'logging/setLevel', 'completion/complete', ''),
      fc.oneof(
        fc.constant(undefined),
        anyJson(),
        fc.record({ name: fc.oneof(fc.constantFrom('list_meetings', 'get_meeting', 'import_recording', 'nope'), nastyString()), arguments: anyJson() }, { requiredKeys: ['name'] }),
        fc.record({ uri: fc.oneof(fc.constantFrom('syntheo://meetings/x', 'syntheo://series/', 'syntheo://meetings/x/transcript?offset=-1&limit=1e9', 'file:///etc/passwd'), nastyString()) }),
        fc.record({ cursor: nastyString() }),
      ),
    )
    .map(([stringId, method, params]) => (n: number) => {
      const id = stringId ? `req-${n}` : n;
      const message: Record<string, unknown> = { jsonrpc: '2.0', id, method };
      if (params !== undefined) message.params = params;
      // A params that is not an object is an invalid request: still answered, with the id.
      return { text: JSON.stringify(expand(message)), expectId: id };
    });

const fixed = (text: string): Line => () => ({ text });

const malformed = (): fc.Arbitrary<Line> =>
  fc.oneof(
    // Not JSON at all.
    fc.string().filter((s) => !s.includes('\n') && !isJson(s)).map(fixed),
    fc.constantFrom('{', '}', '{"jsonrpc":"2.0"', '[', 'null', 'true', '42', '"string"', '{}', '[]', '[1,2]', 'NaN', '{"jsonrpc":"2.0","id":1,"method":"ping"}garbage').map(fixed),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => fixed(Buffer.from(bytes.filter((b) => b !== 10)).toString('latin1'))),
    // Invalid ids: null, fractions, objects, arrays, booleans, integers beyond 2^53.
    fc
      .tuple(fc.constantFrom<unknown>(null, 1.5, -0.25, { a: 1 }, [1], true, 2 ** 60, 1e300), fc.constantFrom('ping', 'tools/list'))
      .map(([id, method]) => fixed(JSON.stringify({ jsonrpc: '2.0', id, method }))),
    // Wrong jsonrpc version or shape, with a valid id: answered -32600 with that id.
    fc
      .constantFrom<Record<string, unknown>>({ jsonrpc: '1.0', method: 'ping' }, { method: 'ping' }, { jsonrpc: '2.0', method: 42 }, { jsonrpc: '2.0', method: 'ping', extra: 1 }, { jsonrpc: '2.0' })
      .map((shape): Line => (id) => ({ text: JSON.stringify({ ...shape, id }), expectId: id })),
    // A batch (removed from MCP in 2025-06-18): one -32600, none of its requests served.
    fc.constant<Line>((id) => ({ text: JSON.stringify([{ jsonrpc: '2.0', id, method: 'ping' }, { jsonrpc: '2.0', id: id + 0.5, method: 'tools/list' }]) })),
    // Responses and notifications nobody asked for.
    fc
      .constantFrom(
        JSON.stringify({ jsonrpc: '2.0', id: 999_999_999, result: {} }),
        JSON.stringify({ jsonrpc: '2.0', id: 'x', error: { code: 1, message: 'no' } }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } }),
        JSON.stringify({ jsonrpc: '2.0', method: 'notifications/whatever', params: [1, 2] }),
      )
      .map(fixed),
  );

function isJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

const PROTOCOL_CODES = [-32700, -32600, -32601, -32602, -32603];

describe('raw stdin', () => {
  it(
    'answers every request with a valid id exactly once, survives everything else, and writes only JSON-RPC (fast-check)',
    async () => {
      const session = new RawSession(db.path, ['--log-level', 'trace']);
      try {
        await session.initialize();
        const expected: (number | string)[] = [];
        let sent = 0;
        await fc.assert(
          fc.asyncProperty(fc.array(fc.oneof(validIdRequest(), malformed()), { minLength: 1, maxLength: 8 }), async (lines) => {
            for (const build of lines) {
              const line = build(++sent);
              await session.write(line.text);
              if (line.expectId !== undefined) expected.push(line.expectId);
            }
            await session.sync();
            expect(session.stdout.violations).toEqual([]);
          }),
          fcParams(60),
        );
        // Each request answered, in whatever order the server finishes them: a tools/call may be answered after a
        // ping sent later (CI once checked right after the last ping and found a request not yet answered).
        for (const id of expected) await session.response(id);
        await session.sync();
        for (const id of expected) {
          const answers = session.messages().filter((m) => m.id === id);
          expect(answers, `responses to id ${JSON.stringify(id)}`).toHaveLength(1);
        }
        for (const m of session.messages()) {
          if (!m.error) continue;
          expect(PROTOCOL_CODES, JSON.stringify(m).slice(0, 300)).toContain(m.error.code);
          // One line a person or a model can read, whatever was sent.
          expect(m.error.message, JSON.stringify(m).slice(0, 300)).not.toMatch(/[\n\r]/);
          expect(m.error.message.length, JSON.stringify(m).slice(0, 300)).toBeLessThanOrEqual(300);
        }
        expect(isAlive(session.pid)).toBe(true);
        expect(session.stdout.violations).toEqual([]);
        expect(session.stdout.unterminated).toBe('');
        expect(await session.end()).toEqual({ code: 0, signal: null });
      } finally {
        session.kill();
      }
    },
    timeoutMs(90_000),
  );

  it('answers a non-JSON line with -32700, an invalid request with -32600 (with its id when it has one) and a batch with -32600', async () => {
    const session = new RawSession(db.path);
    try {
      await session.initialize();
      await session.write('this is not json');
      await session.write(JSON.stringify({ jsonrpc: '1.0', id: 'old', method: 'ping' }));
      await session.write(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 42 }));
      await session.write(JSON.stringify({ jsonrpc: '2.0', id: 1.5, method: 'ping' }));
      await session.write(JSON.stringify([{ jsonrpc: '2.0', id: 8, method: 'ping' }]));
      await session.sync();
      const errors = session.messages().filter((m) => m.error);
      expect(errors.map((m) => [m.id, m.error!.code])).toEqual([
        [undefined, -32700],
        ['old', -32600],
        [7, -32600],
        [undefined, -32600],
        [undefined, -32600],
      ]);
      expect(errors[4]!.error!.message).toMatch(/batch/i);
      expect(await session.end()).toEqual({ code: 0, signal: null });
    } finally {
      session.kill();
    }
  });

  it('serves requests sent before initialize and a resources request followed at once by a tools call', async () => {
    const session = new RawSession(db.path);
    try {
      // Pipelined, no waiting: the tools and the resources load while these lines queue up.
      const lines = [
        { jsonrpc: '2.0', id: 1, method: 'tools/list' },
        { jsonrpc: '2.0', id: 2, method: 'resources/list', params: { cursor: '-1' } },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_meeting', arguments: { meeting_id: ids.oneSummary } } },
        { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: `syntheo://meetings/${ids.oneSummary}` } },
        { jsonrpc: '2.0', id: 5, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'late', version: '1' } } },
        { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'list_meetings', arguments: { query: ids.oneSummary } } },
      ];
      await session.write(lines.map((l) => JSON.stringify(l)).join('\n'));
      const [list, cursor, meeting, resource, init, listed] = await Promise.all([1, 2, 3, 4, 5, 6].map((id) => session.response(id)));
      expect((list!.result!.tools as unknown[]).length).toBe(14);
      expect(cursor!.error).toMatchObject({ code: -32602, message: expect.stringContaining('Invalid cursor') });
      expect(meeting!.result!.structuredContent).toMatchObject({ id: ids.oneSummary, title: 'Réunion équipe 🎉' });
      expect((resource!.result!.contents as { text: string }[])[0]!.text).toContain('Réunion équipe 🎉');
      // A late initialize is still answered with the negotiated version.
      expect(init!.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'syntheo' } });
      expect((listed!.result!.structuredContent as { meetings: { id: string }[] }).meetings.map((m) => m.id)).toEqual([ids.oneSummary]);
      expect(session.stdout.violations).toEqual([]);
    } finally {
      session.kill();
    }
  });

  it(
    'answers a 10 MB request, refuses an 11 MB line with -32600 and keeps serving',
    async () => {
      const session = new RawSession(db.path);
      try {
        await session.initialize();
        // 10,000,000 bytes: under the 10 MiB line limit, a real (if absurd) request, answered in full.
        const prefix = JSON.stringify({ jsonrpc: '2.0', id: 'big', method: 'tools/call', params: { name: 'get_meeting', arguments: { meeting_id: '' } } });
        const filler = 'q'.repeat(10_000_000 - prefix.length);
        await session.write(prefix.replace('"meeting_id":""', `"meeting_id":"mtg_${filler}"`));
        const big = await session.response('big', 30_000);
        expect(big.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Meeting "mtg_q+…" does not exist/) });
        expect(big.error!.message.length).toBeLessThan(300);
        // 11 MB without a newline until the end, then a normal request on the next line.
        await session.write(Buffer.alloc(11_000_000, 'z'));
        await session.sync();
        const tooLarge = session.messages().find((m) => m.error?.code === -32600);
        expect(tooLarge!.error!.message).toMatch(/larger than 10 MiB/);
        const after = await session.request('tools/call', { name: 'get_meeting', arguments: { meeting_id: ids.oneSummary } });
        expect(after.result!.structuredContent).toMatchObject({ id: ids.oneSummary });
        expect(session.stdout.violations).toEqual([]);
        expect(await session.end()).toEqual({ code: 0, signal: null });
      } finally {
        session.kill();
      }
    },
    timeoutMs(60_000),
  );
});
