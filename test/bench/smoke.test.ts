// The benchmarks at tiny sizes, so they keep working (`npm run bench:smoke`). No timing assertions:
// only that every measurement ran and produced a number.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../src/package.js';
import { tempDir } from '../support/db.js';

describe('npm run bench --smoke', () => {
  it('runs every benchmark and prints one table', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'dist', 'bench', 'run.js'), '--smoke', '--db', join(dir, 'smoke.db')], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(0);
      const rows = stdout.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| measure'));
      const names = rows.map((r) => r.split('|')[1]!.trim());
      for (const expected of [
        'generate',
        'baseline no-op tool (same SDK, serveStdio)',
        'list_meetings query fragment',
        'list_folders',
        'get_meeting',
        'get_meeting_transcript longest, near the end',
        'get_recurring_meeting_history',
        'list_proposals',
        'get_proposal',
        'get_recording_import',
        'search_transcripts',
        'resource syntheo://meetings/{id}',
        'resource .../transcript{?offset,limit}',
        'resource syntheo://series/{id}',
        'resources/list (pages of 20)',
        'propose_memo_edit (write)',
        'server-side search_transcripts (1-2 words)',
        'server-side export_meeting, longest transcript',
        'start-up: spawn -> initialize answered',
        'start-up: spawn -> server/discover answered',
        'worker: overhead per job (wall / jobs)',
        'transcript near the end / offset 0 (server-side)',
        'worker: peak RSS increase during the upload',
        'list_meetings default',
        'search_transcripts common + folder (biggest)',
        'write: a meeting, one per transaction (CPU)',
        'write: a meeting + 4 participants, one per transaction (CPU)',
      ])
        expect(names).toContain(expected);
      // The filter matrix: its participant rows name the value chosen from the data.
      expect(names.some((n) => /^list_meetings participant ".+" \(most frequent\)$/.test(n))).toBe(true);
      // Every row has a number in its value column.
      for (const row of rows) expect(row.split('|')[2], row).toMatch(/\d/);
    } finally {
      cleanup();
    }
  }, 180_000);
});
