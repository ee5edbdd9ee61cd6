// FTS5's records (its structure record, its averages record, a row's docsize record) hold SQLite varints.

/** SQLite's varint: big-endian groups of 7 bits, the 9th byte whole. Missing bytes read as 0. */
export function varint(block: Uint8Array, at: number): [value: number, length: number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = block[at + i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, i + 1];
  }
  return [value * 256 + (block[at + 8] ?? 0), 9];
}

/** A row's length in tokens from its docsize record: the sum of its columns' varints. */
export function rowLength(sizes: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < sizes.length; ) {
    const [v, length] = varint(sizes, i);
    n += v;
    i += length;
  }
  return n;
}
