import { defineConfig } from 'vitest/config';
import { SYSTEM_TOOLS, systemToolsRequired } from './test/support/system-tools.js';

// The tests that must hold on both engines (test/support/engine.ts): the MCP contract tests and the
// worker end-to-end tests. They run in the `sqlite` project like every test, and again in the
// `postgres` project against a shared throwaway cluster. Without PostgreSQL that project is left out
// (system-tools.setup.ts prints the package to install; under CI the run fails instead).
const BOTH_ENGINES = [
  'test/mcp/meetings.test.ts',
  'test/mcp/search.test.ts',
  'test/mcp/resources.test.ts',
  'test/mcp/proposals.test.ts',
  'test/mcp/imports.test.ts',
  'test/mcp/steering.test.ts',
  'test/mcp/timing.test.ts',
  'test/mcp/bound.test.ts',
  'test/mcp/tokens.test.ts',
  'test/mcp/protocol.test.ts',
  'test/e2e/worker-ingest.test.ts',
  'test/e2e/worker-lifecycle.test.ts',
  'test/e2e/worker-formats.test.ts',
  'test/e2e/worker-faults.test.ts',
  'test/e2e/worker-storage-errors.test.ts',
  'test/e2e/transcript-timing.test.ts',
  'test/e2e/watch-folders.test.ts',
  'test/e2e/long-recording.test.ts',
];

const withPostgres = SYSTEM_TOOLS.postgresql.present() || systemToolsRequired();

export default defineConfig({
  test: {
    // One line per missing system tool (pocketsphinx, ffmpeg): their tests skip, or fail under CI.
    // One folder for the run's temporary files, removed at its end (tmp.setup.ts).
    globalSetup: ['test/support/system-tools.setup.ts', 'test/support/tmp.setup.ts'],
    // Tests spawn real processes (syntheo mcp, workers, pocketsphinx) on a 2-core machine.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'], provide: { testEngine: 'sqlite' } } },
      ...(withPostgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: BOTH_ENGINES,
                globalSetup: ['test/support/postgres.setup.ts'],
                setupFiles: ['test/support/engine.setup.ts'],
                provide: { testEngine: 'postgres' as const },
              },
            },
          ]
        : []),
    ],
  },
});
