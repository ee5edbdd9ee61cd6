/**
 * A byte count for people, in binary units with at most one decimal: `512 bytes`, `1.5 KiB`, `32 MiB`,
 * `1.1 GiB`. The one size formatter (CLI output, upload limits, the HTTP clients' answer caps).
 */
export function formatSize(n: number): string {
  const units: [number, string][] = [
    [1024 ** 3, 'GiB'],
    [1024 ** 2, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) if (n >= size) return `${Math.round((n / size) * 10) / 10} ${unit}`;
  return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
}
