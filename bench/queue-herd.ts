// `node dist/bench/queue-herd.js --url postgresql://... [--workers 8] [--jobs 200]`: the cost of the
// thundering herd on PostgreSQL. Each queued job NOTIFYs every idle worker; all wake, one claims, the
// others find nothing. Compares the two ways a woken worker can react (look, then claim; or claim at
// once), in statements per queued job, the time a miss costs and the time to pick a job up.
import { openPostgres } from '../src/db/postgres/open.js';
import { claimNextJob, hasQueuedJob } from '../src/db/postgres/jobs.js';
import { JobWaker } from '../src/db/postgres/listen.js';
import { newId } from '../src/db/ids.js';
import { benchArgs } from './args.js';

const values = benchArgs('queue-herd', 'Idle workers woken by NOTIFY: statements per queued job, the cost of a miss, pick-up time.', {
  url: { type: 'string', value: 'URL', description: 'A PostgreSQL database (postgresql://...); its jobs and meetings are deleted' },
  workers: { type: 'string', value: 'N', description: 'Idle workers listening (default 8)' },
  jobs: { type: 'string', value: 'N', description: 'Jobs queued one at a time (default 200)' },
});
if (!values.url) {
  process.stderr.write('queue-herd: --url postgresql://USER@HOST/DATABASE is required.\n');
  process.exit(64);
}
const url = values.url;
const N = Number(values.workers ?? 8);
const JOBS = Number(values.jobs ?? 200);

const q = (a: number[], p: number) => (a.length === 0 ? null : Number([...a].sort((x, y) => x - y)[Math.floor(p * (a.length - 1))]!.toFixed(2)));

for (const strategy of ['look-then-claim', 'claim-at-once'] as const) {
  const dbs = await Promise.all(Array.from({ length: N }, () => openPostgres(url, { create: true, max: 2 })));
  const wakers = dbs.map(() => new JobWaker(url));
  try {
    await Promise.all(wakers.map((w) => w.start()));
    await dbs[0]!.pool.query('DELETE FROM recording_imports');
    await dbs[0]!.pool.query("DELETE FROM meetings WHERE source = 'import'");
    for (const w of wakers) await w.wait(0);
    let statements = 0;
    const miss: number[] = [];
    const pickup: number[] = [];
    for (let j = 0; j < JOBS; j++) {
      const waits = wakers.map((w) => w.wait(10_000));
      const meeting = newId('meeting');
      const t = new Date().toISOString();
      await dbs[0]!.pool.query("INSERT INTO meetings (id, title, started_at, created_at, updated_at, source) VALUES ($1, 'Herd', $2, $2, $2, 'import')", [meeting, t]);
      const t0 = performance.now();
      await dbs[0]!.pool.query(
        "INSERT INTO recording_imports (id, meeting_id, file_path, file_size, file_mtime_ms, file_format, created_at, updated_at) VALUES ($1, $2, '/herd.wav', 10, 0, 'wav', $3, $3)",
        [newId('job'), meeting, t],
      );
      await Promise.all(
        waits.map(async (woken, i) => {
          if ((await woken) !== 'notified') throw new Error('a worker was not notified within 10 s');
          const s = performance.now();
          const pool = dbs[i]!.pool;
          if (strategy === 'look-then-claim') {
            statements++;
            if (!(await hasQueuedJob(pool))) return void miss.push(performance.now() - s);
          }
          statements++;
          if ((await claimNextJob(pool, `wrk_${i}`, 60_000)) !== null) pickup.push(performance.now() - t0);
          else miss.push(performance.now() - s);
        }),
      );
    }
    const row = { strategy, workers: N, jobs: JOBS, statements_per_job: statements / JOBS, misses_per_job: miss.length / JOBS, miss_ms_p50: q(miss, 0.5), miss_ms_p95: q(miss, 0.95), pickup_ms_p50: q(pickup, 0.5), pickup_ms_p95: q(pickup, 0.95) };
    process.stdout.write(`${JSON.stringify(row)}\n`);
  } finally {
    await Promise.all(wakers.map((w) => w.close()));
    await Promise.all(dbs.map((d) => d.close()));
  }
}
