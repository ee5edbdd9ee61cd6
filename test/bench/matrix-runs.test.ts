import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../support/db.js';
import { generate } from '../../bench/generate.js';
import { benchMatrix, combineRuns } from '../../bench/matrix.js';

// The filter matrix run several times over (`--runs N`): a row's p50 is the median of its runs' p50s, its p99 and max the
// worst of its runs'.

describe('bench matrix over several runs', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it("combines a row's runs: the median p50, the worst p99 and max, the calls summed", () => {
    const runs = [
      { calls: 5, p50: 3, p99: 9, max: 9 },
      { calls: 5, p50: 1, p99: 4, max: 30 },
      { calls: 4, p50: 2, p99: 12, max: 12 },
    ];
    expect(combineRuns(runs)).toEqual({ calls: 14, p50: 2, p99: 12, max: 30 });
    expect(combineRuns([runs[0]!])).toEqual(runs[0]);
  });

  it('times every row once a run, and refuses a number of runs that is not a whole number of 1 or more', async () => {
    const db = join(tmp.dir, 'small.db');
    generate({ meetings: 60, words: 6_000, longest: 500, seed: 3, out: db, progress: false });
    const lines: string[] = [];
    const results = await benchMatrix({ db, calls: 2, runs: 3, budgetMs: 50, roundTrip: false, rows: /^search_transcripts common word/, log: (l) => lines.push(l) });
    expect(results).toHaveLength(1);
    expect(results[0]!.calls).toBe(6);
    expect(lines.filter((l) => l.includes('(run '))).toEqual([1, 2, 3].map((k) => expect.stringContaining(`(run ${k} of 3)`)));
    for (const runs of [0, 1.5, Number.NaN]) await expect(benchMatrix({ db, calls: 2, runs, roundTrip: false })).rejects.toThrow(/runs must be a whole number of 1 or more/);
  }, 60_000);
});
