// Logs: readable lines on a person's terminal, NDJSON when piped or under systemd; `syntheo mcp` says it waits.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HAS_SCRIPT, run, runInTerminal, start, startInTerminal } from './cli.js';
import { openTestDb } from '../support/db.js';

let db: ReturnType<typeof openTestDb>;
beforeEach(() => {
  db = openTestDb();
});
afterEach(() => db.cleanup());

/** Runs the worker until it logged that it started, then stops it; what it wrote (stderr, or the terminal). */
async function workerOutput(child: ChildProcess & { result: Promise<{ stdout: string; stderr: string }> }): Promise<string> {
  let seen = '';
  child.stdout!.on('data', (d: Buffer) => (seen += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (seen += d.toString()));
  for (let i = 0; i < 400 && !seen.includes('worker started'); i++) await sleep(50);
  child.kill('SIGTERM');
  const r = await child.result;
  return (r.stdout + r.stderr).replace(/\r\n/g, '\n');
}

describe('worker logs', () => {
  it('piped: one JSON object per line, named syntheo-worker', async () => {
    const out = await workerOutput(start(['--db', db.path, 'worker']));
    const lines = out.trim().split('\n');
    const started = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((e) => e.msg === 'worker started');
    expect(started).toMatchObject({ level: 30, name: 'syntheo-worker', db: db.path, concurrency: 2 });
  });

  it.skipIf(!HAS_SCRIPT)('on a terminal: one readable line per entry, terminal-safe, coloured unless NO_COLOR', async () => {
    // A file name is untrusted text too: its escape is shown, not obeyed.
    const odd = join(db.dir, 'a\x1b[2Jb.db');
    const plain = await workerOutput(startInTerminal(['--db', odd, 'worker'], { env: { NO_COLOR: '1' } }));
    expect(plain).toMatch(/^\d\d:\d\d:\d\d INFO  worker started workerId=wrk_\w+ db=\S+\/a␛\[2Jb\.db concurrency=2 /m);
    expect(plain).not.toContain('{"level"');
    expect(plain).not.toContain('\x1b');
    const coloured = await workerOutput(startInTerminal(['--db', db.path, 'worker']));
    expect(coloured).toContain('\x1b[36mINFO \x1b[0m worker started');
  });

  it.skipIf(!HAS_SCRIPT)('under systemd (INVOCATION_ID), NDJSON even on a terminal', async () => {
    const out = await workerOutput(startInTerminal(['--db', db.path, 'worker'], { env: { INVOCATION_ID: '0123abcd' } }));
    expect(out).toMatch(/^\{"level":30,.*"msg":"worker started"\}$/m);
  });
});

describe('syntheo mcp', () => {
  it.skipIf(!HAS_SCRIPT)('started on a terminal, prints one hint line saying it waits for a client', async () => {
    const r = await runInTerminal(['--db', db.path, 'mcp']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('syntheo mcp: waiting for an MCP client on stdin (assistants start this command themselves); Ctrl-C to stop.\n');
  });

  it('spawned by a client (stdin a pipe) prints nothing on stderr', async () => {
    const r = await run(['--db', db.path, 'mcp']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('');
  });
});
