// Every bench script answers --help (exit 0, nothing run) and a bad argument with one line (exit 64).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package.js';
import { tempDir } from '../support/db.js';

const script = (name: string) => join(PACKAGE_ROOT, 'dist', 'bench', `${name}.js`);
const node = (args: string[], cwd: string) => spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 60_000 });

describe.each(['generate', 'run', 'mcp', 'matrix', 'questions', 'worker', 'fts-upkeep', 'passage-load'])('bench/%s', (name) => {
  it('--help prints its usage and options and runs nothing', () => {
    const { dir, cleanup } = tempDir();
    try {
      const r = node([script(name), '--help'], dir);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: node dist/bench/${name}\\.js \\[options\\]\\n`));
      expect(r.stdout).toMatch(/^ {2}-h, --help +Show this help$/m);
    } finally {
      cleanup();
    }
  });

  it('an unknown option is one line and exit 64, not a stack trace', () => {
    const r = node([script(name), '--bogus'], PACKAGE_ROOT);
    expect(r.status).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${name}: Unknown option '--bogus'. Run \`node dist/bench/${name}.js --help\`.\n`);
  });
});

describe.each(['matrix', 'questions'])('bench/%s without its database', (name) => {
  it('says where none is and how to generate one, in one line, exit 64', () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'none.db');
      const r = node([script(name), '--db', db], dir);
      expect(r.status).toBe(64);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`${name}: no database at ${db}. Generate one with \`node dist/bench/generate.js --out ${db}\`, or pass another with --db.\n`);
    } finally {
      cleanup();
    }
  });
});
