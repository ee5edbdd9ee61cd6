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

  it('covers a month asked as its first and last days (bare dates: each day held whole) with its month, those two days still checked exactly', () => {
    expect(calendarCover({ from: '2026-10-01T00:00:00.000Z', to: '2026-10-31T23:59:59.999Z' }, 'd20211201', 'd20261128')).toEqual({
      tokens: ['dx', 'm202610'],
      edges: ['dx', 'd20261001', 'd20261031'],
    });
    // A year, and one day.
    expect(calendarCover({ from: '2025-01-01T00:00:00.000Z', to: '2025-12-31T23:59:59.999Z' }, 'd20211201', 'd20261128')).toEqual({
      tokens: ['dx', 'y2025'],
      edges: ['dx', 'd20250101', 'd20251231'],
    });
    expect(calendarCover({ from: '2026-10-05T00:00:00.000Z', to: '2026-10-05T23:59:59.999Z' }, 'd20211201', 'd20261128')).toEqual({ tokens: ['dx', 'd20261005'], edges: ['dx', 'd20261005'] });
  });

  it('covers a first or last day with the days between only when the range holds it whole', () => {
    // From the first day's noon: that day an edge, the days after it to the month's end, then November whole.
    expect(calendarCover({ from: '2026-10-01T12:00:00.000Z', to: '2026-11-30T23:59:59.999Z' }, 'd20211201', 'd20261130')).toEqual({
      tokens: ['dx', 'd20261001', ...Array.from({ length: 30 }, (_, i) => `d202610${String(i + 2).padStart(2, '0')}`), 'm202611'],
      edges: ['dx', 'd20261001', 'd20261130'],
    });
    // To the last day's noon: October whole, that day an edge not covered.
    expect(calendarCover({ from: '2026-10-01T00:00:00.000Z', to: '2026-11-01T12:00:00.000Z' }, 'd20211201', 'd20261130')).toEqual({
      tokens: ['dx', 'd20261101', 'm202610'],
      edges: ['dx', 'd20261001', 'd20261101'],
    });
    // One day, from its first instant to its noon: an edge, not covered.
    expect(calendarCover({ from: '2026-10-05T00:00:00.000Z', to: '2026-10-05T12:00:00.000Z' }, 'd20211201', 'd20261128')).toEqual({ tokens: ['dx', 'd20261005'], edges: ['dx', 'd20261005'] });
    // Past the data's last day: not reached.
    expect(calendarCover({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-30T23:59:59.999Z' }, 'd20211201', 'd20261128')).toEqual({
      tokens: ['dx', ...Array.from({ length: 28 }, (_, i) => `d202611${String(i + 1).padStart(2, '0')}`)],
      edges: ['dx', 'd20261101'],
    });
  });
});
