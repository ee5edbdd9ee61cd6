// How big an answer may be. Claude Code refuses (or spills to a file) a tool answer over 25,000
// tokens; Syntheo keeps every answer under it, measured with o200k in bench/tokens.ts and
// test/mcp/tokens.test.ts. At run time there is no tokenizer (it would weigh megabytes): a bound
// in UTF-8 bytes stands in for it.

export const ANSWER_TOKEN_LIMIT = 25_000;

/**
 * Bytes of JSON an answer may take. o200k reads ~2.5 bytes a token in a transcript export's JSON
 * (digits of timings included) and ~4 in English prose, and non-ASCII text takes 2-4 bytes a
 * character: 2 bytes a token is a bound with room, so 44,000 bytes stay under ~22,000 tokens.
 */
export const ANSWER_BYTE_BUDGET = 44_000;

export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), 'utf8');
