// stmt(): one prepared statement per connection and SQL text, handed out in its default modes whatever the previous
// caller set on it (a caller's pluck() once made a write of the search bitmaps read `undefined` for a row).
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { STATEMENTS_KEPT, stmt } from '../../src/db/statements.js';

describe('stmt()', () => {
  const open: Database.Database[] = [];
  const db = () => {
    const d = new Database(':memory:');
    open.push(d);
    d.exec('CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (1, \'x\'), (2, \'y\')');
    return d;
  };
  afterEach(() => {
    for (const d of open.splice(0)) d.close();
  });

  it('prepares a text once per connection', () => {
    const [d1, d2] = [db(), db()];
    const sql = 'SELECT a, b FROM t ORDER BY a';
    expect(stmt(d1, sql)).toBe(stmt(d1, sql));
    expect(stmt(d1, sql)).not.toBe(stmt(d2, sql));
  });

  it('hands a statement back in its default modes after pluck(), raw(), expand() and safeIntegers()', () => {
    const d = db();
    const sql = 'SELECT a, b FROM t ORDER BY a';
    expect(stmt(d, sql).pluck().all()).toEqual([1, 2]);
    expect(stmt(d, sql).get()).toEqual({ a: 1, b: 'x' });
    expect(stmt(d, sql).raw().all()).toEqual([
      [1, 'x'],
      [2, 'y'],
    ]);
    expect(stmt(d, sql).all()).toEqual([
      { a: 1, b: 'x' },
      { a: 2, b: 'y' },
    ]);
    expect(stmt(d, sql).expand().get()).toEqual({ t: { a: 1, b: 'x' } });
    expect(stmt(d, sql).get()).toEqual({ a: 1, b: 'x' });
    expect(stmt(d, sql).safeIntegers().get()).toEqual({ a: 1n, b: 'x' });
    expect(stmt(d, sql).get()).toEqual({ a: 1, b: 'x' });
  });

  it('resets a write statement too (safeIntegers only: row modes are refused on statements that return no rows)', () => {
    const d = db();
    const sql = 'INSERT INTO t VALUES (?, ?)';
    expect(stmt(d, sql).safeIntegers().run(3, 'z').lastInsertRowid).toBe(3n);
    expect(stmt(d, sql).run(4, 'w').lastInsertRowid).toBe(4);
  });
});

describe('stmt() bounded', () => {
  it(`keeps the ${STATEMENTS_KEPT} statements used last on a connection, and a statement given up still runs`, () => {
    const d = new Database(':memory:');
    try {
      const text = (i: number) => `SELECT ${i} AS n`;
      const first = stmt(d, text(0));
      const used = stmt(d, text(1));
      for (let i = 2; i < STATEMENTS_KEPT + 50; i++) {
        stmt(d, text(i));
        if (i % 100 === 0) expect(stmt(d, text(1))).toBe(used); // used again: kept
      }
      expect(stmt(d, text(1))).toBe(used);
      expect(stmt(d, text(STATEMENTS_KEPT + 49))).toBe(stmt(d, text(STATEMENTS_KEPT + 49)));
      const again = stmt(d, text(0));
      expect(again).not.toBe(first); // given up, prepared again
      expect(first.get()).toEqual({ n: 0 });
      expect(again.get()).toEqual({ n: 0 });
    } finally {
      d.close();
    }
  });
});
