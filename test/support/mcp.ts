// Spawns the BUILT CLI (`node dist/src/cli/main.js mcp --db PATH`) and connects the SDK's own clients:
// v2 in modern mode (2026-07-28), v2 in legacy mode (initialize), and the v1 SDK client.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { isPostgresUrl } from '../../src/db/model/postgres.js';
import { TEST_ENGINE, mcpLocation } from './engine.js';

/** The built CLI, found from this file, so tests do not depend on the working directory. */
export const CLI_PATH = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Fails early when dist/ is missing or older than src/: the tests spawn the build, not the sources. */
export function assertBuilt(): void {
  if (!existsSync(CLI_PATH)) throw new Error(`${CLI_PATH} is missing: run \`npm run build\` first (npm test does).`);
  const built = statSync(CLI_PATH).mtimeMs;
  const stale = newerThan(join(PACKAGE_ROOT, 'src'), built);
  if (stale) throw new Error(`${stale} changed after the last build: run \`npm run build\` first (npm test does).`);
}

function newerThan(dir: string, time: number): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = newerThan(path, time);
      if (found) return found;
    } else if (entry.name.endsWith('.ts') && statSync(path).mtimeMs > time) return path;
  }
  return undefined;
}

export interface SpawnOptions {
  /** Extra arguments after `mcp --db PATH`, e.g. ['--log-level', 'debug']. */
  args?: string[];
  env?: Record<string, string>;
  clientInfo?: { name: string; version: string };
}

export function serverArgs(dbPath: string, args: string[] = []): string[] {
  if (TEST_ENGINE === 'postgres' && !isPostgresUrl(dbPath)) throw new Error(`This file runs in the postgres project: pass serve(path).location (test/support/engine.ts), not ${dbPath}.`);
  return [CLI_PATH, 'mcp', '--db', mcpLocation(dbPath), ...args];
}

function childEnv(extra?: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  delete env.SYNTHEO_DB;
  delete env.SYNTHEO_LOG_LEVEL;
  return { ...env, ...extra };
}

export interface Connected<C> {
  client: C;
  /** What the server wrote on stderr so far (logs). */
  stderr(): string;
  close(): Promise<void>;
}

function collect(stream: NodeJS.ReadableStream | null): () => string {
  let text = '';
  stream?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return () => text;
}

export type V2Mode = 'modern' | 'legacy';

/**
 * A v2 client: `modern` negotiates 2026-07-28 through server/discover (versionNegotiation auto);
 * `legacy` runs initialize, at `protocolVersion` when given (2025-11-25 by default).
 */
export async function connectV2(dbPath: string, mode: V2Mode, options: SpawnOptions & { protocolVersion?: string } = {}): Promise<Connected<Client>> {
  assertBuilt();
  const transport = new StdioClientTransport({ command: process.execPath, args: serverArgs(dbPath, options.args), env: childEnv(options.env), stderr: 'pipe' });
  const stderr = collect(transport.stderr as NodeJS.ReadableStream | null);
  const client = new Client(options.clientInfo ?? { name: `syntheo-test-${mode}`, version: '1.0.0' }, {
    ...(mode === 'modern' ? { versionNegotiation: { mode: 'auto' as const } } : {}),
    ...(options.protocolVersion ? { supportedProtocolVersions: [options.protocolVersion] } : {}),
  });
  await client.connect(transport);
  return { client, stderr, close: () => client.close() };
}

export async function connectV1(dbPath: string, options: SpawnOptions = {}): Promise<Connected<V1Client>> {
  assertBuilt();
  const transport = new V1StdioClientTransport({ command: process.execPath, args: serverArgs(dbPath, options.args), env: childEnv(options.env), stderr: 'pipe' });
  const stderr = collect(transport.stderr as NodeJS.ReadableStream | null);
  const client = new V1Client(options.clientInfo ?? { name: 'syntheo-test-v1', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr, close: () => client.close() };
}

/** The JSON-RPC error code of a rejected call (v1 McpError and v2 ProtocolError both carry `code`). */
export async function errorOf(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error('Expected the call to fail with a JSON-RPC error, but it succeeded.');
}

/** Anything with the SDK's callTool (v1 and v2 clients). */
export interface ToolCaller {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

interface ToolResultShape {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  isError?: boolean;
}

/**
 * Calls a tool and returns its structuredContent, after checking what every result must carry:
 * no isError, and one text block: a readable rendering of the answer, never a second copy of the
 * JSON nor longer than it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read fields freely
export async function call<T = any>(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as ToolResultShape;
  if (result.isError) throw new Error(`${name} returned isError: ${JSON.stringify(result.content)}`);
  const texts = (result.content ?? []).filter((c) => c.type === 'text');
  if (texts.length !== 1) throw new Error(`${name}: expected one text block, got ${texts.length}`);
  const text = texts[0]!.text ?? '';
  if (text.trim() === '' || text.trimStart().startsWith('{')) throw new Error(`${name}: the text block is empty or JSON: ${text.slice(0, 80)}`);
  if (text.length > JSON.stringify(result.structuredContent).length + 200) throw new Error(`${name}: the text block is longer than the JSON answer`);
  return result.structuredContent as T;
}

/** The JSON-RPC error of a tool call that must fail. */
export function callError(client: ToolCaller, name: string, args: Record<string, unknown> = {}): Promise<{ code: number; message: string }> {
  return errorOf(client.callTool({ name, arguments: args }));
}

/**
 * The reference's clamps on a paged tool, checked on what comes back: limit 0 and -5 become 1, 201 and
 * 501 and 10^9 stop at `max`, 2.7 is truncated; offset -5 becomes 0 and 10^9 gives an empty last page.
 * `items` names the array of the result; at least `max + 1` items must match `args`.
 */
export async function checkClamps(client: ToolCaller, tool: string, args: Record<string, unknown>, items: string, max: number): Promise<void> {
  const page = async (extra: Record<string, unknown>) => {
    const out = await call(client, tool, { ...args, ...extra });
    return { pagination: out.pagination as { offset: number; limit: number; returned: number; total: number; next_offset?: number }, count: (out[items] as unknown[]).length };
  };
  const cases: [number, number][] = [
    [0, 1],
    [-5, 1],
    [201, Math.min(201, max)],
    [501, Math.min(501, max)],
    [1e9, max],
    [2.7, 2],
  ];
  for (const [limit, expected] of cases) {
    const { pagination, count } = await page({ limit });
    if (pagination.limit !== expected || count !== expected || pagination.returned !== expected || pagination.next_offset !== expected)
      throw new Error(`${tool} limit ${limit}: expected ${expected} items (next_offset ${expected}), got ${JSON.stringify(pagination)} with ${count} items`);
  }
  const negative = await page({ offset: -5, limit: 3 });
  if (negative.pagination.offset !== 0 || negative.pagination.next_offset !== 3) throw new Error(`${tool} offset -5: ${JSON.stringify(negative.pagination)}`);
  const beyond = await page({ offset: 1e9 });
  if (beyond.pagination.offset !== 1e9 || beyond.count !== 0 || beyond.pagination.returned !== 0 || 'next_offset' in beyond.pagination || beyond.pagination.total <= max)
    throw new Error(`${tool} offset 10^9: ${JSON.stringify(beyond.pagination)}`);
}
