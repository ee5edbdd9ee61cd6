import { ID_ALPHABET } from '../src/db/ids.js';

/** mulberry32: a small seeded generator, so a failing sequence of random writes replays. */
export function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  /** One of `xs`, or undefined when there is none. */
  const pick = <T>(xs: readonly T[]): T | undefined => (xs.length ? xs[int(xs.length)] : undefined);
  /** One of `xs`, which must not be empty. */
  const one = <T>(xs: readonly T[]): T => {
    if (xs.length === 0) throw new Error('seeded.one: nothing to pick from');
    return xs[int(xs.length)]!;
  };
  /** An id as newId makes them (`mtg_` + 16 Crockford base32 characters), from the seed: a test whose fragments may be
   * cut from ids, or that asserts a fragment is in none, answers the same at every run. */
  const id = (prefix: string) => `${prefix}_${Array.from({ length: 16 }, () => ID_ALPHABET[int(ID_ALPHABET.length)]).join('')}`;
  return { next, int, pick, one, id };
}
