import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// vitest globalSetup: the whole run's temporary files go under one folder, removed when the run ends.
// Some tests kill workers mid-job (SIGKILL, lost leases); the recording copies and chunk folders such a
// worker leaves are for the next worker of the same database to sweep (removeStaleChunkDirs), and a
// test's database is gone before any would. Without this, each run left them in the machine's /tmp.
// Test files and the processes they spawn inherit TMPDIR (os.tmpdir() reads it). The folder is open to every
// user as /tmp is (1777): some tests run the server as `nobody`, and Chromium writes there.

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'syn-'));
  chmodSync(dir, 0o1777);
  process.env.TMPDIR = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
