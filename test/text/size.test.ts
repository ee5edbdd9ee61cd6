import { describe, expect, it } from 'vitest';
import { formatSize } from '../../src/text/size.js';

describe('formatSize', () => {
  it('binary units, at most one decimal, whole numbers without one', () => {
    expect(formatSize(0)).toBe('0 bytes');
    expect(formatSize(1)).toBe('1 byte');
    expect(formatSize(1023)).toBe('1023 bytes');
    expect(formatSize(1024)).toBe('1 KiB');
    expect(formatSize(1536)).toBe('1.5 KiB');
    expect(formatSize(4 * 1024 * 1024)).toBe('4 MiB');
    expect(formatSize(32 * 1024 * 1024)).toBe('32 MiB');
    expect(formatSize(1_123_155_968)).toBe('1 GiB');
    expect(formatSize(1.25 * 1024 ** 3)).toBe('1.3 GiB');
  });
});
