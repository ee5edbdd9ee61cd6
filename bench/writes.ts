// What writing a meeting costs: one meeting (and its participants) per transaction, as an import or a load
// writes them, into a fresh database, in a fresh process each time (the page faults of a process that has
// just started count). The baseline, in the same run: the same writes with the triggers that feed the
// full-text indexes set aside (src/db/queries/bulk-index.ts), i.e. the rows alone. CPU time, not wall time.
//   node dist/bench/writes.js [--meetings 2000]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/open.js';
import { setIndexesAside } from '../src/db/queries/bulk-index.js';
import { benchArgs } from './args.js';
import { median, ms, type Row } from './stats.js';

const SELF = fileURLToPath(import.meta.url);
const NAMES = ['Yuki Tanaka', 'Sam Berg', 'Ines Kowalski', 'Omar Diallo', 'Lea Rossi', 'Ravi Chen'];

interface Sample {
  /** CPU per meeting written, ms (median of the batches). */
  cpu: number;
  /** Minor page faults per meeting written (median of the batches). */
  faults: number;
}

/** In a child process: `meetings` meetings with `participants` each, one transaction per meeting. */
function measure(mode: 'indexed' | 'aside', participants: number, meetings: number): Sample {
  const dir = mkdtempSync(join(tmpdir(), 'syntheo-writes-'));
  try {
    const db = openDatabase(join(dir, 'w.db'), { create: true });
    const s = db.sqlite;
    if (mode === 'aside') setIndexesAside(s);
    const at = '2026-01-01T00:00:00.000Z';
    s.exec(`INSERT INTO folders (id, path, name, parent_id, created_at) VALUES
      ('fld_a', 'Product', 'Product', NULL, '${at}'), ('fld_b', 'Product/Roadmap 2026', 'Roadmap 2026', 'fld_a', '${at}'), ('fld_c', 'Product/Roadmap 2026/Notes', 'Notes', 'fld_b', '${at}')`);
    const meeting = s.prepare("INSERT INTO meetings (id, title, started_at, folder_id, source, created_at, updated_at) VALUES (?, ?, ?, 'fld_c', 'import', ?, ?)");
    const participant = s.prepare('INSERT INTO participants (id, meeting_id, name, email, position) VALUES (?, ?, ?, ?, ?)');
    const write = s.transaction((i: number) => {
      const id = `mtg_w${String(i).padStart(14, '0')}`;
      const started = new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();
      meeting.run(id, `Weekly planning ${i} — roadmap review`, started, started, started);
      for (let p = 0; p < participants; p++) {
        const name = NAMES[(i + p) % NAMES.length]!;
        participant.run(`prt_w${i}_${p}`, id, `${name} ${i % 50}`, `${name.split(' ')[0]!.toLowerCase()}${i % 50}@acme.test`, p);
      }
    });
    const batches: Sample[] = [];
    const batch = Math.max(10, Math.floor(meetings / 10));
    for (let i = 0; i < batch; i++) write(i); // warm-up: statements prepared, caches filled
    for (let from = batch; from < batch + meetings; from += batch) {
      const cpu0 = process.cpuUsage();
      const faults0 = process.resourceUsage().minorPageFault;
      for (let i = from; i < from + batch; i++) write(i);
      const cpu = process.cpuUsage(cpu0);
      batches.push({ cpu: (cpu.user + cpu.system) / 1000 / batch, faults: (process.resourceUsage().minorPageFault - faults0) / batch });
    }
    db.close();
    return { cpu: median(batches.map((b) => b.cpu)), faults: median(batches.map((b) => b.faults)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function child(mode: 'indexed' | 'aside', participants: number, meetings: number): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [SELF, '--child', `${mode},${participants},${meetings}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    p.once('error', reject);
    p.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Sample) : reject(new Error(`writes child exited with ${code}`))));
  });
}

/** Rows for `npm run bench`: with and without participants, the two modes alternating, medians of `rounds` processes each. */
export async function benchWrites(o: { meetings: number; rounds: number }): Promise<Row[]> {
  const rows: Row[] = [];
  for (const participants of [0, 4]) {
    const runs = { indexed: [] as Sample[], aside: [] as Sample[] };
    for (let r = 0; r < o.rounds; r++)
      for (const mode of ['aside', 'indexed'] as const) runs[mode].push(await child(mode, participants, o.meetings));
    const cpu = median(runs.indexed.map((x) => x.cpu));
    const base = median(runs.aside.map((x) => x.cpu));
    const faults = median(runs.indexed.map((x) => x.faults));
    rows.push({
      name: `write: a meeting${participants ? ` + ${participants} participants` : ''}, one per transaction (CPU)`,
      value: ms(cpu, 3),
      detail: `indexes set aside ${ms(base, 3)}, ${(cpu / base).toFixed(2)}x; ${faults.toFixed(1)} page faults a meeting (${median(runs.aside.map((x) => x.faults)).toFixed(1)} set aside)`,
      budget: `<= ${WRITE_BUDGET}x indexes set aside`,
      ok: cpu / base <= WRITE_BUDGET,
    });
  }
  return rows;
}

/** Every index a meeting feeds (passages, titles, list terms, tags, participants) at most this many times the rows' own cost. */
const WRITE_BUDGET = 4;

if (process.argv[1] === SELF) {
  const childArg = process.argv.indexOf('--child');
  if (childArg >= 0) {
    const [mode, participants, meetings] = process.argv[childArg + 1]!.split(',');
    process.stdout.write(JSON.stringify(measure(mode as 'indexed' | 'aside', Number(participants), Number(meetings))));
  } else {
    const values = benchArgs('writes', 'What writing a meeting costs (CPU, page faults), against the same writes with the index triggers set aside.', {
      meetings: { type: 'string', value: 'N', description: 'Meetings written per process (default 2000)' },
      rounds: { type: 'string', value: 'N', description: 'Processes per mode (default 3)' },
    });
    for (const r of await benchWrites({ meetings: Number(values.meetings ?? 2000), rounds: Number(values.rounds ?? 3) })) process.stdout.write(`${r.name}: ${r.value} (${r.detail}) ${r.ok ? 'ok' : 'OVER'}\n`);
  }
}
