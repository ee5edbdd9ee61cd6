// How big an answer may be. Claude Code refuses (or spills to a file) a tool answer over 25,000
// tokens; Syntheo keeps every answer under it, measured with o200k in bench/tokens.ts and
// test/mcp/tokens.test.ts. At run time there is no tokenizer (it would weigh megabytes): a bound
// in UTF-8 bytes stands in for it.
import type { Pagination } from '../db/queries/types.js';

export const ANSWER_TOKEN_LIMIT = 25_000;

/**
 * Bytes of JSON an answer may take. o200k reads ~2.5 bytes a token in a transcript export's JSON
 * (digits of timings included) and ~4 in English prose, and non-ASCII text takes 2-4 bytes a
 * character: 2 bytes a token is a bound with room, so 44,000 bytes stay under ~22,000 tokens.
 */
export const ANSWER_BYTE_BUDGET = 44_000;

export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * Bytes of JSON a list page's items may take: ~12,000 tokens at 2.7 bytes a token (rows measure 2.9 in
 * English or Chinese, 2.1 in emoji, which then still stays far under 25,000). Titles run to 500 characters: 200 of them cannot fit, whatever the row, so a page
 * ends early instead, and pagination says where the next one starts, as for any page.
 */
export const LIST_BYTE_BUDGET = 32_000;

export function fitList<T>(items: readonly T[], page: Pagination, budget = LIST_BYTE_BUDGET): { items: T[]; pagination: Pagination } {
  let used = 0;
  let kept = 0;
  for (const item of items) {
    used += jsonBytes(item) + 1;
    if (used > budget && kept > 0) break;
    kept++;
  }
  if (kept === items.length) return { items: [...items], pagination: page };
  return { items: items.slice(0, kept), pagination: { ...page, returned: kept, next_offset: page.offset + kept } };
}
