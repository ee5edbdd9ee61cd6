import type { Page, Pagination } from './types.js';

export interface PageRule {
  defaultLimit: number;
  maxLimit: number;
}

export const PAGE_RULES = {
  meetings: { defaultLimit: 20, maxLimit: 200 },
  folders: { defaultLimit: 100, maxLimit: 200 },
  history: { defaultLimit: 20, maxLimit: 200 },
  proposals: { defaultLimit: 20, maxLimit: 200 },
  transcript: { defaultLimit: 200, maxLimit: 500 },
  resources: { defaultLimit: 20, maxLimit: 20 },
  search: { defaultLimit: 10, maxLimit: 50 },
} as const satisfies Record<string, PageRule>;

/** Beyond any real offset, and still exact in a double and in SQLite's integer. */
const MAX_OFFSET = Number.MAX_SAFE_INTEGER;

/**
 * The reference's clamps: limit into [1, max] (default when absent), offset below 0 becomes 0.
 * Non-integers are truncated; NaN and non-finite values fall back to the default / the bound.
 */
export function clampPage(rule: PageRule, limit?: number, offset?: number): Page {
  return { limit: clampLimit(rule, limit), offset: clampOffset(offset) };
}

export function clampLimit(rule: PageRule, limit?: number): number {
  if (limit === undefined || Number.isNaN(limit)) return rule.defaultLimit;
  if (limit === Infinity) return rule.maxLimit;
  return Math.min(rule.maxLimit, Math.max(1, Math.trunc(limit)));
}

export function clampOffset(offset?: number): number {
  if (offset === undefined || Number.isNaN(offset) || offset < 0) return 0;
  if (offset === Infinity) return MAX_OFFSET;
  return Math.min(MAX_OFFSET, Math.trunc(offset));
}

export function pagination(page: Page, returned: number, total: number): Pagination {
  const out: Pagination = { offset: page.offset, limit: page.limit, returned, total };
  if (page.offset + returned < total) out.next_offset = page.offset + returned;
  return out;
}
