// openDatabase settles glibc's malloc once per process (src/db/open.ts settleAllocator): SQLite's temporary
// b-trees then reuse freed heap instead of faulting fresh pages in each time (~20 faults of 15-45 µs a statement
// before, half the CPU of a meeting insert). Measured in a fresh process, where the allocator starts as glibc sets it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package.js';
import { tempDir } from '../support/db.js';

const CHILD = `
const { openDatabase } = await import(process.argv[1]);
const db = openDatabase(process.argv[2], { create: true });
// A recursive CTE under a DISTINCT: two temporary b-trees, each with its own page cache.
const q = db.sqlite.prepare('WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 50) SELECT count(DISTINCT i) AS n FROM c');
for (let i = 0; i < 20; i++) q.get();
const before = process.resourceUsage().minorPageFault;
for (let i = 0; i < 500; i++) q.get();
process.stdout.write(String((process.resourceUsage().minorPageFault - before) / 500));
db.close();
`;

describe.runIf(process.platform === 'linux')('the allocator after openDatabase (Linux)', () => {
  it('runs statements with temporary b-trees without faulting pages in again (fewer than 1 page fault a statement; 10 before)', () => {
    const tmp = tempDir();
    try {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', CHILD, join(PACKAGE_ROOT, 'dist', 'src', 'db', 'open.js'), join(tmp.dir, 'a.db')], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(Number(r.stdout)).toBeLessThan(1);
    } finally {
      tmp.cleanup();
    }
  });
});
