import { describe, expect, it } from 'vitest';
import { firstInOrder } from '../../src/db/queries/rank.js';

// A small deterministic generator: the same rows on every run.
function rowsOf(n: number, seed: number, scores: number): { id: number; score: number }[] {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: n }, (_, i) => ({ id: i, score: next() % scores }));
}

describe('firstInOrder: the first rows of an order without sorting the rest', () => {
  const byScore = (a: { id: number; score: number }, b: { id: number; score: number }) => a.score - b.score || b.id - a.id;

  it('gives exactly the head of the full sort, for every k, with many ties broken by the order', () => {
    for (const [n, scores] of [[0, 5], [1, 5], [7, 3], [2000, 2000], [2000, 7], [2001, 1]] as const) {
      const rows = rowsOf(n, n + scores, scores);
      const sorted = [...rows].sort(byScore);
      for (const k of [0, 1, 2, 9, 10, 50, 249, 250, 251, 1999, 2000, 2001, 5000]) expect(firstInOrder(rows, byScore, k), `n ${n}, k ${k}`).toEqual(sorted.slice(0, k));
    }
  });

  it('leaves its input as it was', () => {
    const rows = rowsOf(1000, 3, 50);
    const copy = rows.map((r) => ({ ...r }));
    firstInOrder(rows, byScore, 10);
    firstInOrder(rows, byScore, 900);
    expect(rows).toEqual(copy);
  });
});
