// Unified diff of two texts, line by line (Myers' O((N+M)D) algorithm), as `diff -u` prints it.

type Op = { kind: ' ' | '-' | '+'; line: string };

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Shortest edit script between a and b. */
function editScript(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  // Walk the trace backwards to recover the path.
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) ops.push({ kind: ' ', line: a[--x]! }), y--;
    if (d > 0) {
      if (x === prevX) ops.push({ kind: '+', line: b[--y]! });
      else ops.push({ kind: '-', line: a[--x]! });
    }
  }
  return ops.reverse();
}

/**
 * `--- a/<label>` / `+++ b/<label>` headers and hunks with `context` lines around changes.
 * Identical texts give an empty string.
 */
export function unifiedDiff(before: string, after: string, label: string, context = 3): string {
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = editScript(a, b);
  if (ops.every((o) => o.kind === ' ')) return '';
  const out = [`--- a/${label}`, `+++ b/${label}`];
  // Positions of each op in a and b.
  const posA: number[] = [];
  const posB: number[] = [];
  let ia = 0;
  let ib = 0;
  for (const o of ops) {
    posA.push(ia);
    posB.push(ib);
    if (o.kind !== '+') ia++;
    if (o.kind !== '-') ib++;
  }
  let i = 0;
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === ' ') i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    // Extend the hunk while changes are closer than 2*context lines apart.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end++;
      let next = end;
      while (next < ops.length && ops[next]!.kind === ' ') next++;
      if (next < ops.length && next - end <= 2 * context) end = next;
      else {
        end = Math.min(ops.length, end + context);
        break;
      }
    }
    const hunk = ops.slice(start, end);
    const countA = hunk.filter((o) => o.kind !== '+').length;
    const countB = hunk.filter((o) => o.kind !== '-').length;
    const startA = countA === 0 ? posA[start]! : posA[start]! + 1;
    const startB = countB === 0 ? posB[start]! : posB[start]! + 1;
    out.push(`@@ -${startA}${countA === 1 ? '' : `,${countA}`} +${startB}${countB === 1 ? '' : `,${countB}`} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.line}`);
    i = end;
  }
  return `${out.join('\n')}\n`;
}
