// Where a block's bits are set (bitmaps of passages, migration 0013; of meetings, 0019), read in SQL.

/** From this many set bits a block (an eighth of them) on, its positions are read bit by bit (see setBits). */
const DENSE_BLOCK = 512;

/**
 * The positions of the set bits of a block's bits (an SQL expression), as `z.pos`: a lateral join. A sparse block's bits
 * as text split at each 1, the pieces' lengths summed (in C: ~0.06 ms a block and 0.3 µs a set bit); a dense block's
 * 4,096 bits each tested (get_bit over generate_series: ~0.2 ms a block, whatever it holds). Four blocks of `the`
 * (3,548 bits each at 100k meetings): 4.5 ms split, 1.1 tested; of a word in 1 passage of 40 (100 each): 0.34 and 0.79.
 * They cost the same at ~450 bits. One branch runs for a block: the other's condition holds on the block alone.
 */
export const setBits = (bits: string) =>
  `CROSS JOIN LATERAL (SELECT (sum(length(u.piece) + 1) OVER (ORDER BY u.ord) - 1)::int AS pos
                      FROM unnest(string_to_array((${bits})::text, '1')) WITH ORDINALITY u(piece, ord) WHERE bit_count(${bits}) < ${DENSE_BLOCK}
                      UNION ALL
                      SELECT i FROM generate_series(0, 4095) i WHERE bit_count(${bits}) >= ${DENSE_BLOCK} AND get_bit(${bits}, i) = 1) z`;
