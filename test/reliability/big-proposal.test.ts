// A proposal as large as allowed, with every line changed, is staged, read and applied by the real
// processes with bounded memory: its diff falls back to "removed, then added" instead of growing with
// the square of its length. Peak memory is read from /proc (Linux), never timed.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROPOSAL_BYTES, getProposalOrThrow } from '../../src/db/queries/proposals.js';
import { openTestDb } from '../support/db.js';
import { makeMeeting } from '../support/factories.js';
import { assertBuilt, call, serverArgs } from '../support/mcp.js';
import { run } from '../cli/cli.js';
import { applyPatch } from '../text/patch.js';

/** Lines of `prefix` up to `bytes` in all. */
function note(prefix: string, bytes: number): string {
  const out: string[] = [];
  let size = 0;
  for (let i = 0; ; i++) {
    const line = `${prefix} line ${i}: ${'word '.repeat(8)}\n`;
    if (size + line.length > bytes) return out.join('');
    out.push(line);
    size += line.length;
  }
}

/** Peak resident memory of a live process, in MB. */
function peakRssMb(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(kb) / 1024;
}

const BASE = note('old', MAX_PROPOSAL_BYTES);
const PROPOSED = note('new', MAX_PROPOSAL_BYTES);

let db: ReturnType<typeof openTestDb>;
let meeting: string;
let client: Client;
let transport: StdioClientTransport;

beforeAll(async () => {
  assertBuilt();
  db = openTestDb();
  meeting = makeMeeting(db.sqlite, { title: 'Long note', note: BASE });
  transport = new StdioClientTransport({ command: process.execPath, args: serverArgs(db.path), stderr: 'pipe' });
  client = new Client({ name: 'big-proposal-test', version: '1.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  db?.cleanup();
});

describe.skipIf(process.platform !== 'linux')('a 1 MiB proposal with every line changed', () => {
  it('is staged and read back with a diff base -> proposed, the server staying under 250 MB', async () => {
    expect(Buffer.byteLength(PROPOSED)).toBeGreaterThan(MAX_PROPOSAL_BYTES - 100);
    const staged = await call(client, 'propose_memo_edit', { meeting_id: meeting, content: PROPOSED });
    const proposalId: string = staged.id;
    for (let i = 0; i < 2; i++) {
      // The answer is cut to fit one tool answer (test/mcp/bound.test.ts), and says so.
      const p = await call(client, 'get_proposal', { proposal_id: proposalId });
      expect(p.truncated).toBeDefined();
      expect(PROPOSED.startsWith(p.content)).toBe(true);
      expect(p.diff.split('\n', 1)[0]).toMatch(/^\(The changes are too many to compare line by line/);
    }
    expect(peakRssMb(transport.pid!)).toBeLessThan(250);
    // The whole proposal was stored, and its whole diff turns the base into it.
    const whole = getProposalOrThrow(db.sqlite, proposalId);
    expect(whole.content).toBe(PROPOSED);
    expect(applyPatch(BASE, whole.diff)).toBe(PROPOSED);
  }, 240_000);

  it('`proposals show` prints it and `proposals apply` writes it, exit 0', async () => {
    // Stored as any client could have stored it before diffs were bounded.
    const other = makeMeeting(db.sqlite, { title: 'Another long note', note: BASE });
    const proposalId = 'prp_big_cli';
    db.sqlite
      .prepare(`INSERT INTO proposals (id, meeting_id, kind, content, base_content, status, created_at) VALUES (?, ?, 'memo', ?, ?, 'pending', ?)`)
      .run(proposalId, other, PROPOSED, BASE, new Date().toISOString());
    const show = await run(['proposals', 'show', proposalId, '--db', db.path]);
    expect(show.stderr).toBe('');
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('The changes are too many to compare line by line');
    const applied = await run(['proposals', 'apply', proposalId, '--db', db.path]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(proposalId);
    expect(db.sqlite.prepare('SELECT note FROM meetings WHERE id = ?').pluck().get(other)).toBe(PROPOSED);
  }, 240_000);
});
