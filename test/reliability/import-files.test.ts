// import_recording against files that are not recordings, or not files: each gets a clear -32603
// naming the problem, and nothing is enqueued (no job, no meeting). The app is "open" throughout
// (a fresh heartbeat), so every refusal is the file's doing.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { tempDir } from '../support/db.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { STACK_LINE } from '../cli/cli.js';
import { count, keepWorkerAlive, writeWav } from './support/fixtures.js';
import { RawSession, connectTapped, type TappedClient } from './support/sessions.js';

let dir: string;
let cleanup: () => void;
let db: ReturnType<typeof openDatabase>;
let session: TappedClient;
let stopWorker: () => void;
let socketServer: Server;

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('syntheo-files-'));
  db = openDatabase(join(dir, 'syntheo.db'), { create: true });
  stopWorker = keepWorkerAlive(db.sqlite);
  mkdirSync(join(dir, 'audio'));
  session = await connectTapped(db.path, { mode: 'modern' });
});
afterAll(async () => {
  await session?.close();
  stopWorker?.();
  socketServer?.close();
  db?.close();
  cleanup?.();
});

const audio = (name: string) => join(dir, 'audio', name);
const rows = () => ({ jobs: count(db.sqlite, 'recording_imports'), meetings: count(db.sqlite, 'meetings') });

/** A truncated MP3, made from a real one: the first `bytes` bytes of the fixture. */
function cutMp3(name: string, bytes: number): string {
  writeFileSync(audio(name), readFileSync(fixturePath('budget', 'mp3')).subarray(0, bytes));
  return audio(name);
}

async function listen(path: string): Promise<string> {
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer.listen(path, resolve));
  return path;
}

// [name, make the path, message]
const ATTACKS: [string, () => string | Promise<string>, RegExp][] = [
  ['a directory', () => audio(''), /is a directory/],
  ['a symlink to a directory', () => (symlinkSync(join(dir, 'audio'), audio('dir-link.wav')), audio('dir-link.wav')), /is a directory/],
  ['a FIFO (must not block waiting for a writer)', () => (execFileSync('mkfifo', [audio('pipe.wav')]), audio('pipe.wav')), /not a regular file \(it is a device, pipe or socket\)/],
  ['a Unix socket', () => listen(audio('sock.wav')), /not a regular file/],
  ['/dev/zero', () => '/dev/zero', /not a regular file/],
  ['a symlink to /dev/zero', () => (symlinkSync('/dev/zero', audio('zero.wav')), audio('zero.wav')), /not a regular file/],
  ['a symlink loop', () => (symlinkSync(audio('loop-b.wav'), audio('loop-a.wav')), symlinkSync(audio('loop-a.wav'), audio('loop-b.wav')), audio('loop-a.wav')), /is a symlink loop/],
  ['a dangling symlink', () => (symlinkSync(audio('gone.wav'), audio('dangling.wav')), audio('dangling.wav')), /does not exist \(or is a symlink to a missing file\)/],
  ['a path through a file', () => join(writeWav(audio('file.wav')), 'inside.wav'), /goes through something that is not a directory/],
  ['0 bytes', () => (writeFileSync(audio('empty.wav'), ''), audio('empty.wav')), /is empty \(0 bytes\)/],
  ['a text file named .wav', () => (writeFileSync(audio('notes.wav'), 'the budget moves to thursday, and nothing else.\n'.repeat(40)), audio('notes.wav')), /not a supported recording: it looks like text/],
  ['a PDF named .mp3', () => (writeFileSync(audio('doc.mp3'), Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2000, 1)])), audio('doc.mp3')), /not a supported recording: it looks like a PDF/],
  ['a truncated MP3: cut inside its ID3 tag', () => cutMp3('cut-15.mp3', 15), /is cut short: it ends inside its ID3 tag/],
  ['a truncated MP3: cut inside its first frame', () => cutMp3('cut-150.mp3', 150), /is cut short: it ends inside its first MPEG audio frame/],
  ['a truncated MP3: its first few hundred bytes', () => cutMp3('cut-300.mp3', 300), /is cut short: its header declares 26100 bytes of audio but the file has 300/],
  ['a truncated MP3: cut mid-frame at 60 %', () => cutMp3('cut-60.mp3', 15_672), /is cut short: its header declares 26100 bytes of audio but the file has 15672/],
  ['a truncated WAV', () => (writeFileSync(audio('cut.wav'), readFileSync(fixturePath('budget', 'wav')).subarray(0, 50_000)), audio('cut.wav')), /is cut short: its RIFF header declares \d+ bytes but the file has 50000/],
  ['a relative path', () => 'audio/standup.wav', /is relative/],
  ['a ~ path', () => '~/x.wav', /starts with "~", which is not expanded here/],
  ['a 5,000-character path', () => `/${'a'.repeat(4_993)}/x.wav`, /longer than 4096 bytes/],
  ['a path with a 300-character name', () => `/${'n'.repeat(300)}/x.wav`, /too long for this system/],
  ['a path with a NUL', () => `${audio('ok.wav')}\u0000.txt`, /contains a NUL character/],
  ['an empty path', () => '', /file_path is empty/],
];

describe('import_recording refuses what is not a complete recording, and enqueues nothing', () => {
  it.each(ATTACKS)('%s', async (_name, make, message) => {
    const path = await make();
    const before = rows();
    const error = await errorOf(session, { file_path: path, request_key: `attack-${_name}` });
    expect(error.code).toBe(-32603);
    expect(error.message).toMatch(message);
    expect(error.message).not.toMatch(STACK_LINE);
    expect(error.message.length).toBeLessThan(600);
    expect(rows()).toEqual(before);
  });

  it('while a valid recording next to them is accepted (the setup is not what refuses)', async () => {
    const before = rows();
    const job = (await session.client.callTool({ name: 'import_recording', arguments: { file_path: fixturePath('budget', 'mp3') } })) as { structuredContent: { processing_status: string; file_format: string } };
    expect(job.structuredContent).toMatchObject({ processing_status: 'queued', file_format: 'mp3' });
    expect(rows()).toEqual({ jobs: before.jobs + 1, meetings: before.meetings + 1 });
    expect(session.stdout.violations).toEqual([]);
  });
});

describe('an unreadable file', () => {
  // As root, chmod 000 does not stop a read: the server then runs as nobody (uid 65534) instead.
  const root = process.getuid?.() === 0;
  it(`gets "permission denied"${root ? ' (server run as nobody: the tests run as root)' : ''}`, async () => {
    const { dir: home, cleanup: remove } = tempDir('syntheo-unreadable-');
    try {
      const path = join(home, 'private.wav');
      writeWav(path);
      chmodSync(path, 0o000);
      const dbPath = join(home, 'syntheo.db');
      const own = openDatabase(dbPath, { create: true });
      const stop = keepWorkerAlive(own.sqlite);
      const user = root ? { uid: 65534, gid: 65534 } : undefined;
      if (user) for (const p of [home, dbPath, `${dbPath}-wal`, `${dbPath}-shm`]) chownSync(p, user.uid, user.gid);
      const raw = new RawSession(dbPath, [], {}, user);
      try {
        await raw.initialize();
        const before = count(own.sqlite, 'recording_imports');
        const reply = await raw.request('tools/call', { name: 'import_recording', arguments: { file_path: path } });
        expect(reply.error).toMatchObject({ code: -32603, message: expect.stringMatching(/cannot be read by the user running Syntheo \(permission denied\)/) });
        expect(count(own.sqlite, 'recording_imports')).toBe(before);
        expect(raw.stdout.violations).toEqual([]);
      } finally {
        raw.kill();
        stop();
        own.close();
      }
    } finally {
      remove();
    }
  });
});

describe('a FIFO with a writer attached', () => {
  it('is refused at once, without reading the stream', async () => {
    const fifo = audio('live.wav');
    execFileSync('mkfifo', [fifo]);
    // A writer holding the FIFO open (O_RDWR does not block): a reader could block on it forever.
    const fd = openSync(fifo, 'r+');
    try {
      const started = Date.now();
      const error = await errorOf(session, { file_path: fifo });
      expect(error).toMatchObject({ code: -32603, message: expect.stringMatching(/not a regular file/) });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      closeSync(fd);
    }
  });
});

async function errorOf(s: TappedClient, args: Record<string, unknown>): Promise<{ code: number; message: string }> {
  try {
    await s.client.callTool({ name: 'import_recording', arguments: args });
  } catch (error) {
    const { code, message } = error as { code: number; message: string };
    return { code, message };
  }
  throw new Error(`import_recording ${JSON.stringify(args).slice(0, 200)} succeeded`);
}
