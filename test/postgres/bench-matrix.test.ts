import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { needs } from '../support/system-tools.js';
import { clusterForBlock } from '../support/postgres.js';
import { generate } from '../../bench/generate.js';
import { copyDatabase } from '../../src/db/copy.js';
import { benchMatrix, matrixMarkdown, matrixRows } from '../../bench/matrix.js';
import { drawQuestions, questionsReport, timeQuestions } from '../../bench/questions.js';

// The filter matrix on both engines (`npm run bench -- --matrix --engine postgres`): the PostgreSQL
// database is filled from the SQLite file when empty (its search bitmaps then built as a worker's upkeep
// would), every row is timed on both, and both engines give the same answers. The generator writes search
// passages itself; they must be the ones Syntheo cuts (`db copy` re-indexes every transcript), or every
// search total would differ between the engines.

describe.skipIf(needs('postgresql'))('bench matrix on SQLite and PostgreSQL side by side', () => {
  const pgBlock = clusterForBlock();

  it('fills the empty PostgreSQL database, times every row on both engines, and finds the same answers', async () => {
    const generated = join(pgBlock.tmp.dir, 'generated.db');
    generate({ meetings: 300, words: 30_000, longest: 2_000, seed: 7, out: generated, progress: false });
    const copied = join(pgBlock.tmp.dir, 'copied.db');
    await copyDatabase(generated, copied);
    const passages = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.prepare("SELECT meeting_id, word_offset, speaker, text FROM search_passages WHERE kind = 'transcript' ORDER BY meeting_id, word_offset").all();
      } finally {
        db.close();
      }
    };
    expect(passages(generated)).toEqual(passages(copied));
    const url = await pgBlock.cluster.createDatabase();
    const lines: string[] = [];
    const results = await benchMatrix({ db: generated, url, calls: 2, budgetMs: 50, roundTrip: false, log: (l) => lines.push(l) });
    expect(lines.some((l) => l.startsWith('db copy SQLite -> PostgreSQL'))).toBe(true);
    // The copy's search bitmaps as a worker's upkeep leaves them: its dense words and tags kept (too few passages here for
    // a whole block of 4,096 to be built).
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const kept = (await pool.query<{ words: number; tags: number }>("SELECT count(*) FILTER (WHERE kind = 'w')::int AS words, count(*) FILTER (WHERE kind = 't')::int AS tags FROM search_bitmap_terms")).rows[0]!;
      expect(kept.words).toBeGreaterThan(0);
      expect(kept.tags).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
    expect(results.length).toBeGreaterThan(30);
    for (const r of results) {
      expect(r.pg, r.name).toBeDefined();
      expect(r.pg!.mismatch, `${r.tool} ${r.name}`).toBeUndefined();
      expect(r.pg!.total, `${r.tool} ${r.name}`).toBe(r.total);
      expect([r.calls, r.pg!.calls]).toEqual([2, 2]);
    }
    // Some rows find something: the values come from the data.
    expect(results.filter((r) => r.total > 0).length).toBeGreaterThan(20);
    expect(matrixMarkdown(results)).toContain('| PostgreSQL p50 / p99 / max |');
    expect(matrixRows(results).every((row) => row.budget !== undefined && /\d/.test(row.value))).toBe(true);
    // Random questions drawn from the same data (bench/questions.ts): each timed on both engines, the same answers.
    const timed = await timeQuestions({ db: generated, url, questions: drawQuestions(generated, 40, 5, true), calls: 1 });
    expect(timed).toHaveLength(80);
    for (const t of timed) {
      expect(t.mismatch, JSON.stringify(t.question)).toBeUndefined();
      expect([t.sqlite, t.postgres].every((ms) => Number.isFinite(ms) && ms! >= 0)).toBe(true);
    }
    expect(questionsReport(timed)).toContain('Every answer the same on both engines.');
  }, 240_000);
});
