import { randomBytes } from 'node:crypto';

export const ID_PREFIXES = {
  meeting: 'mtg',
  folder: 'fld',
  series: 'ser',
  summary: 'sum',
  proposal: 'prp',
  job: 'job',
  actionItem: 'act',
  participant: 'ppl',
  transcript: 'trn',
  worker: 'wrk',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

/** Crockford base32, lower case: the characters after an id's prefix. */
export const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** Opaque id with a readable prefix: `mtg_` + 16 base32 characters (80 random bits). */
export function newId(kind: IdKind): string {
  const bytes = randomBytes(16);
  let out = `${ID_PREFIXES[kind]}_`;
  for (let i = 0; i < 16; i++) out += ID_ALPHABET[bytes[i]! & 31];
  return out;
}
