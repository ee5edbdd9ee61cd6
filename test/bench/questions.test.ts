import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../support/db.js';
import { generate } from '../../bench/generate.js';
import { drawQuestions, questionsReport, timeQuestions } from '../../bench/questions.js';

// Random questions timed (bench/questions.ts): drawn from the data, the same for the same seed, each timed on SQLite (the
// PostgreSQL side is test/postgres/bench-matrix.test.ts's), and reported per tool with the slowest.

describe('bench questions', () => {
  const tmp = tempDir();
  afterAll(() => tmp.cleanup());

  it('draws the same questions for a seed, times each, and reports their quantiles and the slowest', async () => {
    const db = join(tmp.dir, 'small.db');
    generate({ meetings: 60, words: 6_000, longest: 500, seed: 3, out: db, progress: false });
    const questions = drawQuestions(db, 12, 4, true);
    expect(questions).toHaveLength(24);
    expect(drawQuestions(db, 12, 4, true)).toEqual(questions);
    expect(drawQuestions(db, 12, 5, true)).not.toEqual(questions);
    expect(questions.filter((q) => q.tool === 'list_meetings')).toHaveLength(12);
    const timed = await timeQuestions({ db, questions, calls: 2 });
    expect(timed.map((t) => t.question)).toEqual(questions);
    for (const t of timed) {
      expect(Number.isFinite(t.sqlite) && t.sqlite >= 0).toBe(true);
      expect(t.postgres).toBeUndefined();
    }
    const report = questionsReport(timed, 3);
    expect(report).toMatch(/^\| SQLite \| search_transcripts \| 12 \| [\d.]+ \| [\d.]+ \| [\d.]+ \| \d+ \|$/m);
    expect(report).toMatch(/^\| SQLite \| list_meetings \| 12 \|/m);
    expect(report.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(3);
    expect(report).toContain('SQLite alone: no answers compared');
  }, 60_000);
});
