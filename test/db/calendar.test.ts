// The calendar tokens of a date range (src/db/model/calendar.ts), as both engines' searches read them.
import { describe, expect, it } from 'vitest';
import { calendarCover, daysSpanned } from '../../src/db/model/calendar.js';

describe('calendar tokens', () => {
  it('counts the days between two day tokens, both included', () => {
    expect(daysSpanned('d20261128', 'd20261128')).toBe(1);
    expect(daysSpanned('d20260101', 'd20261231')).toBe(365);
    expect(daysSpanned('d20240101', 'd20241231')).toBe(366);
    expect(daysSpanned('d20211201', 'd20261128')).toBe(1824);
  });

  it('covers a month asked as its first and last days with the days between them, those two checked exactly', () => {
    expect(calendarCover({ from: '2026-10-01T00:00:00.000Z', to: '2026-10-31T23:59:59.999Z' }, 'd20211201', 'd20261128')).toEqual({
      tokens: ['dx', 'd20261001', 'd20261031', 'd20261002', 'd20261003', ...Array.from({ length: 27 }, (_, i) => `d202610${String(i + 4).padStart(2, '0')}`)],
      edges: ['dx', 'd20261001', 'd20261031'],
    });
  });
});
