/** Bits set in `words` (the SWAR popcount, a 32-bit word at a time): the search and list bitmaps' totals. */
export function popcount(words: Int32Array | Uint32Array): number {
  let count = 0;
  for (let i = 0; i < words.length; i++) {
    let v = words[i]! - ((words[i]! >>> 1) & 0x55555555);
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    count += Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  }
  return count;
}
