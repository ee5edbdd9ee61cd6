import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/db.js';
import { CLI, cleanEnv } from '../support/worker-process.js';

// `syntheo app`'s command line: its options, and the failures a person can meet before the page opens.

const dir = tempDir();
afterAll(() => dir.cleanup());

const run = (...args: string[]) => spawnSync(process.execPath, [CLI, 'app', '--db', join(dir.dir, 'app.db'), '--no-open', ...args], { env: cleanEnv(), encoding: 'utf8', timeout: 30_000 });

describe('syntheo app', () => {
  it('documents its options', () => {
    const help = spawnSync(process.execPath, [CLI, 'help', 'app'], { env: cleanEnv(), encoding: 'utf8' });
    expect(help.status).toBe(0);
    for (const option of ['--port N', '--host ADDRESS', '--no-open', '--no-worker', '--db PATH']) expect(help.stdout).toContain(option);
  });

  it('refuses a port that is not one, as a usage error', () => {
    const r = run('--port', 'abc');
    expect(r.status).toBe(64);
    expect(r.stderr).toContain('--port must be a number from 0 to 65535 (got "abc")');
  });

  it('says what to do when the port is taken, and exits 1', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const r = run('--port', String(port), '--no-worker');
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Port ${port} on 127.0.0.1 is in use (is \`syntheo app\` already running?). Choose another with --port N, or --port 0 for any free port.`);
    } finally {
      busy.close();
    }
  });
});
