import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One line per missing system tool (pocketsphinx, ffmpeg): their tests skip, or fail under CI.
    globalSetup: ['test/support/system-tools.setup.ts'],
    // Tests spawn real processes (syntheo mcp, workers, pocketsphinx) on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
