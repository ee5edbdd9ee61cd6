// Storage faults: a read-only database file, a read-only folder (no -wal/-shm can be created), a full
// disk, a WAL left behind by a writer killed mid-transaction, a file moved away or cut in half. Each
// gives a clear message (never a stack trace), nothing is corrupted, and once the fault is gone the
// same server (or the next start) works again.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, statfsSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { proposeMemoEdit } from '../../src/db/queries/proposals.js';
import { sqliteError } from '../../src/db/sqlite/errors.js';
import { tempDir } from '../support/db.js';
import { CLI, STACK_LINE, cleanEnv } from '../cli/cli.js';
import { seed, type Seeded } from './support/fixtures.js';
import { integrityCheck, invariantProblems } from './support/invariants.js';
import { RawSession } from './support/sessions.js';

const ROOT = process.getuid?.() === 0;
/** The user the server runs as: as root, permissions do not bind, so the processes under test run as nobody. */
const USER = ROOT ? { uid: 65534, gid: 65534 } : undefined;

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function workspace(): { dir: string; path: string; ids: Seeded } {
  const { dir, cleanup } = tempDir('syntheo-storage-');
  // Permissions back first, so that a failed test can still be cleaned up.
  cleanups.push(cleanup, () => chmodSync(dir, 0o755));
  const path = join(dir, 'syntheo.db');
  const db = openDatabase(path, { create: true });
  const ids = seed(db.sqlite);
  db.close();
  return { dir, path, ids };
}

/** Gives the server's user (nobody as root, else us) read+write on these paths, or read-only. */
function allow(paths: string[], write: boolean): void {
  for (const p of paths) {
    if (!existsSync(p)) continue;
    const dir = statSync(p).isDirectory();
    if (USER) {
      chownSync(p, write ? USER.uid : 0, write ? USER.gid : 0);
      chmodSync(p, dir ? 0o755 : 0o644);
    } else chmodSync(p, dir ? (write ? 0o755 : 0o555) : write ? 0o644 : 0o444);
  }
}

/** The CLI, run as the server's user (nobody as root), or as this process when `asUs`. */
function cli(args: string[], asUs = false): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cleanEnv(), ...(asUs ? {} : USER), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c));
    child.stderr.on('data', (c: Buffer) => (out += c));
    child.on('close', (code) => resolve({ code: code ?? -1, out }));
  });
}

/** `syntheo mcp` on `path`, run as the server's user (nobody as root), or as this process when `asUs`. */
async function server(path: string, asUs = false): Promise<RawSession> {
  const session = new RawSession(path, [], {}, asUs ? undefined : USER);
  cleanups.push(() => session.kill());
  await session.initialize();
  return session;
}

const call = (s: RawSession, name: string, args: Record<string, unknown>) => s.request('tools/call', { name, arguments: args });

function clear(message: string | undefined, pattern: RegExp): void {
  expect(message).toMatch(pattern);
  expect(message).not.toMatch(STACK_LINE);
  expect(message).not.toMatch(/SQLITE_|SqliteError/);
}

describe('a read-only database file (its folder writable)', () => {
  it('is still read, refuses writes with a clear -32603, and writes again once it is writable, without a restart', async () => {
    const { dir, path, ids } = workspace();
    allow([dir], true);
    allow([path], false);
    const s = await server(path);
    const list = await call(s, 'list_meetings', {});
    expect((list.result!.structuredContent as { pagination: { total: number } }).pagination.total).toBe(3);
    const refused = await call(s, 'propose_memo_edit', { meeting_id: ids.noSummary, content: 'Read-only?' });
    expect(refused.error!.code).toBe(-32603);
    clear(refused.error!.message, /The database is read-only for this process: it can be read, but nothing can be saved\. Make the database file .* writable/);

    const cliWrite = await cli(['--db', path, 'folders', 'create', 'Archive']);
    expect(cliWrite.code).toBe(1);
    clear(cliWrite.out, /read-only/);
    expect((await cli(['--db', path, 'meetings', 'list'])).code).toBe(0);

    allow([path, `${path}-wal`, `${path}-shm`], true);
    const accepted = await call(s, 'propose_memo_edit', { meeting_id: ids.noSummary, content: 'Writable again.' });
    expect(accepted.result!.structuredContent).toMatchObject({ status: 'pending', content: 'Writable again.' });
    await s.end();
    const db = openDatabase(path, { create: false });
    expect(invariantProblems(db.sqlite)).toEqual([]);
    db.close();
  });
});

describe('a read-only folder (the -wal and -shm files cannot be created)', () => {
  it('names the folder and what to do, keeps the server up, and works once the folder is writable', async () => {
    const { dir, path, ids } = workspace();
    allow([path], true);
    allow([dir], false);
    const s = await server(path);
    const first = await call(s, 'list_meetings', {});
    expect(first.error!.code).toBe(-32603);
    // Whole, not cut to the wire's 300 characters (the test's path is as long as a home folder's application data).
    expect(first.error!.message).not.toContain('…');
    clear(first.error!.message, new RegExp(`at ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: its folder is not writable, and SQLite needs to create syntheo\\.db-wal and syntheo\\.db-shm next to it\\. Let the user running Syntheo write there`));
    const cliRead = await cli(['--db', path, 'meetings', 'list']);
    expect(cliRead.code).toBe(1);
    clear(cliRead.out, /its folder is not writable/);

    allow([dir], true);
    const again = await call(s, 'propose_memo_edit', { meeting_id: ids.noSummary, content: 'Folder fixed.' });
    expect(again.result!.structuredContent).toMatchObject({ status: 'pending' });
    await s.end();
  });
});

describe('a full disk', () => {
  // A small tmpfs to fill: needs root (mount). Without it, the same SQLITE_FULL comes from max_page_count below.
  const canMount = ROOT && spawnSync('mount', ['--version']).status === 0;
  it.skipIf(!canMount)('refuses writes with "disk is full", keeps reading, corrupts nothing, and writes again once space is freed (tmpfs)', async () => {
    const { dir: base, cleanup } = tempDir('syntheo-full-');
    const mnt = join(base, 'mnt');
    mkdirSync(mnt);
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=3m,mode=0777', 'tmpfs', mnt]);
    if (mounted.status !== 0) throw new Error(`mount failed: ${mounted.stderr}`);
    cleanups.push(cleanup, () => spawnSync('umount', ['-l', mnt]));
    const path = join(mnt, 'syntheo.db');
    const setup = openDatabase(path, { create: true });
    const ids = seed(setup.sqlite);
    setup.close();
    const filler = join(mnt, 'filler');
    const free = () => {
      const s = statfsSync(mnt);
      return s.bavail * s.bsize;
    };
    writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 256 * 1024)));

    const s = await server(path, true);
    const content = (n: number) => `# Note ${n}\n\n${'Minutes of the meeting. '.repeat(8_000)}`;
    let full: { code: number; message: string } | undefined;
    const made: string[] = [];
    for (let n = 0; n < 20 && !full; n++) {
      const reply = await call(s, 'propose_memo_edit', { meeting_id: ids.noSummary, content: content(n) });
      if (reply.error) full = reply.error;
      else made.push((reply.result!.structuredContent as { id: string }).id);
    }
    expect(full).toBeDefined();
    expect(full!.code).toBe(-32603);
    clear(full!.message, /^The disk holding the database is full\. Free some space and try again; nothing was written\.$/);
    expect((await call(s, 'list_proposals', { status: 'all', limit: 200 })).result!.structuredContent).toMatchObject({ pagination: { total: made.length + 2 } });
    const cliFull = await cli(['--db', path, 'folders', 'create', 'Archive'], true);
    expect(cliFull.code).toBe(1);
    clear(cliFull.out, /disk holding (the database|it) is full/);
    expect((await cli(['--db', path, 'meetings', 'list'], true)).code).toBe(0);

    rmSync(filler);
    const after = await call(s, 'propose_memo_edit', { meeting_id: ids.noSummary, content: content(99) });
    expect(after.result!.structuredContent).toMatchObject({ status: 'pending' });
    await s.end();
    const db = openDatabase(path, { create: false });
    expect(invariantProblems(db.sqlite)).toEqual([]);
    // Every proposal that was answered is there, whole.
    for (const id of made) expect((db.sqlite.prepare('SELECT length(content) AS n FROM proposals WHERE id = ?').get(id) as { n: number }).n).toBeGreaterThan(100_000);
    db.close();

    // Not a page left and no process holding the database: opening (the -shm index) fails too, and says why.
    writeFileSync(join(mnt, 'rest'), Buffer.alloc(Math.max(0, free() - 4096)));
    const cliNoRoom = await cli(['--db', path, 'meetings', 'list'], true);
    expect(cliNoRoom.code).toBe(1);
    clear(cliNoRoom.out, /Cannot open the database at .*: the disk holding it is full\. Free some space/);
  });

  it('maps SQLITE_FULL to the same message when SQLite itself runs out of room (max_page_count)', () => {
    const { path, ids } = workspace();
    const db = openDatabase(path, { create: true });
    try {
      db.sqlite.pragma(`max_page_count = ${db.sqlite.pragma('page_count', { simple: true }) as number}`);
      let caught: unknown;
      try {
        proposeMemoEdit(db.sqlite, { meetingId: ids.noSummary, content: 'x'.repeat(200_000) });
      } catch (error) {
        caught = error;
      }
      expect((caught as { code?: string }).code).toBe('SQLITE_FULL');
      // The Store maps engine errors (src/db/sqlite/errors.ts): this is the message its callers get.
      expect(sqliteError(caught as Error & { code: string }).message).toBe('The disk holding the database is full. Free some space and try again; nothing was written.');
      expect(db.sqlite.prepare('SELECT count(*) FROM proposals').pluck().get()).toBe(2);
      expect(integrityCheck(db.sqlite)).toEqual(['ok']);
    } finally {
      db.close();
    }
  });
});

describe('a WAL left behind by a writer killed in the middle of a transaction', () => {
  it('keeps every committed write and none of the half-done one, and is folded back on the next start', async () => {
    const { path, ids } = workspace();
    // A writer committing large proposals one after the other, told to die (SIGKILL) mid-way.
    const writer = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { openDatabase } = await import(${JSON.stringify(new URL('../../dist/src/db/open.js', import.meta.url).href)});
         const { proposeMemoEdit } = await import(${JSON.stringify(new URL('../../dist/src/db/queries/proposals.js', import.meta.url).href)});
         const db = openDatabase(${JSON.stringify(path)}, { create: false });
         db.sqlite.pragma('wal_autocheckpoint = 0');
         for (let n = 0; ; n++) {
           const p = proposeMemoEdit(db.sqlite, { meetingId: ${JSON.stringify(ids.noSummary)}, content: 'Take ' + n + ' ' + 'minutes '.repeat(60000) });
           process.stdout.write(p.id + '\\n');
         }`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    writer.stdout.on('data', (c: Buffer) => (out += c));
    const exited = new Promise((resolve) => writer.on('exit', resolve));
    while (out.split('\n').length < 6) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, Math.random() * 20));
    writer.kill('SIGKILL');
    await exited;
    const committed = out.split('\n').filter(Boolean);
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(1_000_000);

    // The next start: `syntheo mcp` sees every proposal the writer reported, whole.
    const s = await server(path, true);
    const listed = await call(s, 'list_proposals', { status: 'all', limit: 200 });
    const found = (listed.result!.structuredContent as { proposals: { id: string }[] }).proposals.map((p) => p.id);
    for (const id of committed) expect(found).toContain(id);
    // At most one more: a commit that happened before its id was printed. Each one whole.
    expect(found.length - 2 - committed.length).toBeLessThanOrEqual(1);
    const check = openDatabase(path, { create: false });
    const lengths = check.sqlite.prepare("SELECT content FROM proposals WHERE content LIKE 'Take %'").pluck().all() as string[];
    for (const content of lengths) expect(content).toMatch(/^Take \d+ (minutes ){60000}$/);
    check.close();
    await s.end();
    const db = openDatabase(path, { create: false });
    expect(invariantProblems(db.sqlite)).toEqual([]);
    db.close();
    // The last connection checkpointed and removed the WAL: the crash left nothing behind.
    expect(existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0).toBe(0);
  });
});

describe('a database file cut in half, or in a folder that cannot be created', () => {
  it('says the file is damaged, and names the folder it cannot create (never a stack trace)', async () => {
    const { dir, path } = workspace();
    const cut = join(dir, 'cut.db');
    writeFileSync(cut, readFileSync(path));
    truncateSync(cut, Math.floor(statSync(cut).size / 2));
    const damaged = await server(cut, true);
    const reply = await call(damaged, 'list_meetings', {});
    expect(reply.error!.code).toBe(-32603);
    clear(reply.error!.message, /damaged/);
    const cliCut = await cli(['--db', cut, 'meetings', 'list'], true);
    expect(cliCut.code).toBe(1);
    clear(cliCut.out, /damaged/);

    // A command that creates the database, pointed into a file: it was "Unexpected internal error".
    writeFileSync(join(dir, 'a-file'), 'not a folder');
    const blocked = await cli(['--db', join(dir, 'a-file', 'sub', 'syntheo.db'), 'folders', 'create', 'Archive'], true);
    expect(blocked.code).toBe(1);
    clear(blocked.out, /Cannot open the Syntheo database at .*a-file\/sub\/syntheo\.db \(E[A-Z]+\)\. Check that its folder exists or can be created/);
  });
});

describe('a database file deleted or moved while syntheo mcp runs', () => {
  const MOVED = /^The database file was moved, renamed or deleted while Syntheo had it open; nothing was saved\. Restart Syntheo/;

  it('refuses writes with the "moved" message instead of accepting proposals that vanish at exit (deleted)', async () => {
    const { path, ids } = workspace();
    const s = await server(path, true);
    const before = await call(s, 'propose_memo_edit', { meeting_id: ids.noSummary, content: 'Saved while the file is there.' });
    expect(before.result!.structuredContent).toMatchObject({ status: 'pending' });
    rmSync(path);
    const refused = await call(s, 'propose_memo_edit', { meeting_id: ids.noSummary, content: 'Would vanish at exit.' });
    expect(refused.error!.code).toBe(-32603);
    clear(refused.error!.message, MOVED);
    const decline = await call(s, 'decline_proposal', { proposal_id: ids.proposals[0] });
    clear(decline.error!.message, MOVED);
    // Reads still answer from the open file: every read tool (search and lists read in one snapshot, a transaction).
    expect((await call(s, 'list_meetings', { participant: 'ada' })).result!.structuredContent).toMatchObject({ pagination: { total: 1 } });
    expect((await call(s, 'search_transcripts', { query: 'budget' })).result!.structuredContent).toMatchObject({ pagination: { total: 1 } });
    const reads: [string, Record<string, unknown>][] = [
      ['list_meetings', {}],
      ['get_meeting', { meeting_id: ids.oneSummary }],
      ['get_meeting_transcript', { meeting_id: ids.oneSummary }],
      ['export_meeting', { meeting_id: ids.twoSummaries }],
      ['get_recurring_meeting_history', { meeting_id: ids.oneSummary }],
      ['list_folders', {}],
      ['list_proposals', { status: 'all' }],
      ['get_proposal', { proposal_id: ids.proposals[1] }],
    ];
    for (const [name, args] of reads) {
      const answer = await call(s, name, args);
      expect([name, answer.error, answer.result?.isError ?? false]).toEqual([name, undefined, false]);
    }
    await s.end();
    // No -wal/-shm left under the old name for a database created there later to pick up.
    expect([existsSync(`${path}-wal`), existsSync(`${path}-shm`)]).toEqual([false, false]);
  });

  it('refuses writes after a rename, and the file at its new place holds no write accepted after the move', async () => {
    const { dir, path, ids } = workspace();
    const s = await server(path, true);
    expect((await call(s, 'list_proposals', { status: 'all' })).result!.structuredContent).toMatchObject({ pagination: { total: 2 } });
    const moved = join(dir, 'moved.db');
    renameSync(path, moved);
    const refused = await call(s, 'propose_memo_edit', { meeting_id: ids.noSummary, content: 'After the move.' });
    expect(refused.error!.code).toBe(-32603);
    clear(refused.error!.message, MOVED);
    await s.end();
    const db = openDatabase(moved, { create: false });
    expect(db.sqlite.prepare('SELECT count(*) FROM proposals').pluck().get()).toBe(2);
    db.close();
  });
});
