import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds of test time of the slowest files (project:path), measured in a whole run on Node 20 (2 Dec 2026, 2 cores).
 * vitest orders the files it has timed before, longest first, from its cache; a clean checkout (CI) has none, and
 * files then go largest first: `test/store/postgres.test.ts`, small and 41 s long, started last, and one of the two
 * workers waited for it. The longest start first: the last to start are short, and the two workers end together.
 */
const SLOWEST: Record<string, number> = {
  'sqlite:test/postgres/search-bitmaps.test.ts': 53,
  'sqlite:test/e2e/long-recording.test.ts': 49,
  'sqlite:test/postgres/worker-faults.test.ts': 44,
  'sqlite:test/packaging/pack.test.ts': 44,
  'sqlite:test/postgres/filter-tags.test.ts': 40,
  'sqlite:test/reliability/crash.test.ts': 34,
  'sqlite:test/app/browser.test.ts': 34,
  'sqlite:test/store/postgres.test.ts': 32,
  'sqlite:test/cli/meetings.test.ts': 26,
  'sqlite:test/bench/smoke.test.ts': 26,
  'sqlite:test/worker/clients/pocketsphinx.test.ts': 25,
  'sqlite:test/postgres/copy.test.ts': 24,
  'postgres:test/e2e/watch-folders.test.ts': 23,
  'postgres:test/e2e/worker-lifecycle.test.ts': 23,
  'sqlite:test/e2e/watch-folders.test.ts': 20,
  'sqlite:test/postgres/word-counts.test.ts': 20,
  'sqlite:test/e2e/worker-formats.test.ts': 20,
  'postgres:test/e2e/long-recording.test.ts': 20,
  'sqlite:test/postgres/recording.test.ts': 20,
  'sqlite:test/cli/doctor.test.ts': 18,
  'postgres:test/e2e/worker-formats.test.ts': 17,
  'sqlite:test/db/search-bits.test.ts': 16,
  'sqlite:test/cli/imports.test.ts': 16,
  'sqlite:test/reliability/concurrency.test.ts': 16,
  'sqlite:test/db/open.test.ts': 16,
};

/** vitest's order (its cache's durations when it has them), with the files above first, longest first. */
export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification) => SLOWEST[`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`] ?? 0;
    // Array sort is stable: the others keep vitest's order.
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}
