// `node dist/bench/import-memory.js --url postgresql://... [--mib 1024]`: import_recording on PostgreSQL
// streams the file into the database; this imports one big WAV (1 GiB by default) and reports how much
// the process grew (peak RSS over the RSS before, sampled every 10 ms), the time, and the throughput.
// A benchmark, not a test: the test (test/postgres/recording.test.ts) asserts a bound on 256 MiB.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wavHeader } from '../src/audio/wav.js';
import { openStore } from '../src/db/engine.js';
import { benchArgs } from './args.js';

const MiB = 1024 * 1024;

const values = benchArgs('import-memory', 'Import one big recording into PostgreSQL and report the peak RSS growth.', {
  url: { type: 'string', value: 'URL', description: 'An empty PostgreSQL database (postgresql://...)' },
  mib: { type: 'string', value: 'N', description: 'PCM data in the WAV, in MiB (default 1024)' },
});
if (!values.url) {
  process.stderr.write('import-memory: --url postgresql://USER@HOST/DATABASE is required (an empty database).\n');
  process.exit(64);
}
const mib = Number(values.mib ?? 1024);

const dir = mkdtempSync(join(tmpdir(), 'syntheo-bench-import-'));
try {
  const file = join(dir, 'allhands.wav');
  // Written 1 MiB at a time, with varying bytes (compression would flatter constant ones).
  const fd = openSync(file, 'w');
  writeSync(fd, wavHeader(mib * MiB));
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < mib; i++) {
    block.fill(i & 0xff);
    block.writeUInt32LE(i, 0);
    writeSync(fd, block);
  }
  closeSync(fd);

  const store = await openStore(values.url, { create: true });
  try {
    // import_recording refuses without a live worker: this process stands in for one while it runs.
    const workerId = `wrk_bench_${process.pid}_${Date.now()}`;
    await store.workers.register({ id: workerId, concurrency: 1, version: 'bench' });
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.memoryUsage();
    let peak = before.rss;
    let peakExternal = before.external + before.arrayBuffers;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peak = Math.max(peak, m.rss);
      peakExternal = Math.max(peakExternal, m.external + m.arrayBuffers);
    }, 10);
    const t = performance.now();
    const job = await store.imports.enqueue({ filePath: file, title: 'Bench: big recording' });
    const ms = performance.now() - t;
    clearInterval(sampler);
    const row = {
      file_mib: mib,
      job: job.job_id,
      seconds: Number((ms / 1000).toFixed(1)),
      mib_per_s: Number((mib / (ms / 1000)).toFixed(1)),
      rss_before_mib: Number((before.rss / MiB).toFixed(1)),
      peak_rss_growth_mib: Number(((peak - before.rss) / MiB).toFixed(1)),
      peak_external_growth_mib: Number(((peakExternal - before.external - before.arrayBuffers) / MiB).toFixed(1)),
      node: process.version,
    };
    process.stdout.write(`${JSON.stringify(row)}\n`);
    await store.workers.markStopped(workerId);
  } finally {
    await store.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
