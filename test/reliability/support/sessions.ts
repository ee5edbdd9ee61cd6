// Two ways to talk to the BUILT `syntheo mcp`, both checking that its stdout carries JSON-RPC only:
// the SDK's own v2 client with its child's stdout tapped, and a raw line session for what no SDK
// client would ever send.
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { parseJSONRPCMessage } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { assertBuilt, serverArgs } from '../../support/mcp.js';

/** The test runner's environment without Syntheo settings, plus `extra`. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SYNTHEO_')) env[k] = v;
  return { ...env, ...extra };
}

/** Splits a byte stream into lines and records every complete line that is not one JSON-RPC message. */
export class StdoutChecker {
  private partial = '';
  readonly messages: unknown[] = [];
  readonly violations: string[] = [];
  lineCount = 0;

  constructor(private readonly keep = false) {}

  feed(chunk: Buffer | string): void {
    this.partial += chunk.toString();
    let nl: number;
    while ((nl = this.partial.indexOf('\n')) !== -1) {
      const line = this.partial.slice(0, nl);
      this.partial = this.partial.slice(nl + 1);
      this.check(line);
    }
  }

  private check(line: string): void {
    this.lineCount++;
    try {
      const message = parseJSONRPCMessage(JSON.parse(line));
      if (this.keep) this.messages.push(message);
    } catch {
      this.violations.push(line.length > 300 ? `${line.slice(0, 300)}…` : line);
    }
  }

  /** What is left after the last newline: must be empty once the process is quiet. */
  get unterminated(): string {
    return this.partial;
  }
}

export function isAlive(pid: number | null | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface TappedClient {
  client: Client;
  pid: number;
  stdout: StdoutChecker;
  /** Errors the SDK client reported (undecodable lines, unknown response ids...). */
  protocolErrors: Error[];
  stderr(): string;
  close(): Promise<void>;
}

/** A v2 SDK client on a spawned `syntheo mcp`, its child's stdout checked line by line. */
export async function connectTapped(dbPath: string, options: { mode?: 'modern' | 'legacy'; env?: Record<string, string>; args?: string[] } = {}): Promise<TappedClient> {
  assertBuilt();
  const mode = options.mode ?? 'modern';
  const transport = new StdioClientTransport({ command: process.execPath, args: serverArgs(dbPath, options.args), env: childEnv(options.env), stderr: 'pipe' });
  let stderr = '';
  (transport.stderr as unknown as NodeJS.ReadableStream).on('data', (c: Buffer) => (stderr += c.toString()));
  const stdout = new StdoutChecker();
  // Tap the session child's stdout as soon as it is spawned (an instance property: a modern client's
  // discover probe runs on a sibling process, which needs the base class's prototype untouched).
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    (transport as unknown as { _process: ChildProcess })._process.stdout!.on('data', (c: Buffer) => stdout.feed(c));
  };
  const client = new Client({ name: 'syntheo-reliability', version: '1.0.0' }, mode === 'modern' ? { versionNegotiation: { mode: 'auto' } } : {});
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  return { client, pid: transport.pid!, stdout, protocolErrors, stderr: () => stderr, close: () => client.close() };
}

interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: string | number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/** Raw stdio: lines in, JSON-RPC messages out, every stdout line checked. */
export class RawSession {
  readonly child: ChildProcess;
  readonly stdout = new StdoutChecker(true);
  private stderrText = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private nextId = 1_000_000;

  constructor(dbPath: string, args: string[] = [], env: Record<string, string> = {}, user?: { uid: number; gid: number }) {
    assertBuilt();
    this.child = spawn(process.execPath, serverArgs(dbPath, args), { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv(env), ...user });
    this.child.stdout!.on('data', (c: Buffer) => this.stdout.feed(c));
    this.child.stderr!.on('data', (c: Buffer) => (this.stderrText += c.toString()));
    // A server that dies must fail the test, not crash the runner with EPIPE.
    this.child.stdin!.on('error', () => {});
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid!;
  }

  stderr(): string {
    return this.stderrText;
  }

  /** Writes `line` and a newline; resolves when the pipe has taken it (a 10 MB line takes a while). */
  write(line: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child.stdin!;
      const payload = Buffer.concat([Buffer.isBuffer(line) ? line : Buffer.from(line), Buffer.from('\n')]);
      stdin.write(payload, (error) => (error ? reject(error) : resolve()));
    });
  }

  messages(): JsonRpcMessage[] {
    return this.stdout.messages as JsonRpcMessage[];
  }

  /** The first response with this id, waiting up to `ms`. */
  async response(id: string | number, ms = 15_000): Promise<JsonRpcMessage> {
    const until = Date.now() + ms;
    for (;;) {
      const found = this.messages().find((m) => m.id === id && ('result' in m || 'error' in m));
      if (found) return found;
      if (Date.now() > until) throw new Error(`no response to id ${JSON.stringify(id)} within ${ms} ms; stderr:\n${this.stderrText.slice(-2000)}`);
      if (this.child.exitCode !== null || this.child.signalCode !== null) throw new Error(`syntheo mcp exited (${this.child.exitCode ?? this.child.signalCode}) before answering id ${JSON.stringify(id)}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Sends a request with a fresh id and waits for its response. */
  async request(method: string, params?: unknown): Promise<JsonRpcMessage> {
    return this.requestWithin(method, params);
  }

  async requestWithin(method: string, params?: unknown, ms = 15_000): Promise<JsonRpcMessage> {
    const id = this.nextId++;
    await this.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    return this.response(id, ms);
  }

  /**
   * Everything written so far has been read (the lines it rejects answered, in order): a ping sent now comes back. The
   * requests among them may still be under way: the server answers each when it is done, a tools/call often after a
   * later ping (wait for those with `response`).
   */
  async sync(): Promise<void> {
    const reply = await this.request('ping');
    if (!reply.result) throw new Error(`ping failed: ${JSON.stringify(reply)}`);
  }

  async initialize(protocolVersion = '2025-11-25'): Promise<void> {
    const reply = await this.request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-reliability', version: '1' } });
    if (!reply.result) throw new Error(`initialize failed: ${JSON.stringify(reply)}`);
    await this.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  }

  /** Closes stdin (what a client does) and waits for the exit. */
  async end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin!.end();
    return this.exited;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
