import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { needs } from '../support/system-tools.js';
import { startPostgres, type PgCluster } from '../support/postgres.js';
import { tempDir } from '../support/db.js';
import { writeWav } from '../support/wav.js';
import { wavHeader } from '../../src/audio/wav.js';
import { openStore } from '../../src/db/engine.js';
import { call, connectV2 } from '../support/mcp.js';
import type { Store } from '../../src/db/store.js';

const MiB = 1024 * 1024;

/** A process's resident memory now and its high-water mark, from /proc (bytes). */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** A valid WAV of `bytes` PCM bytes, written 1 MiB at a time (never whole in this process's memory). */
function bigWav(path: string, bytes: number): string {
  const fd = openSync(path, 'w');
  writeSync(fd, wavHeader(bytes));
  const block = Buffer.alloc(MiB, 7);
  for (let left = bytes; left > 0; left -= MiB) writeSync(fd, block, 0, Math.min(MiB, left));
  closeSync(fd);
  return path;
}

async function collect(it: AsyncIterable<Buffer>): Promise<{ sha: string; size: number; chunks: number }> {
  const hash = createHash('sha256');
  let size = 0;
  let chunks = 0;
  for await (const c of it) {
    hash.update(c);
    size += c.length;
    chunks++;
  }
  return { sha: hash.digest('hex'), size, chunks };
}

describe.skipIf(needs('postgresql'))('PostgreSQL: the recording travels with the job', () => {
  let cluster: PgCluster;
  let tmp: ReturnType<typeof tempDir>;
  let url: string;
  let store: Store;
  beforeAll(async () => {
    cluster = await startPostgres();
    tmp = tempDir();
    url = await cluster.createDatabase();
    store = await openStore(url, { create: true });
    await store.workers.register({ id: 'wrk_test', concurrency: 1, version: '0.1.0' });
  });
  afterAll(async () => {
    await store?.close();
    cluster?.destroy();
    tmp?.cleanup();
  });

  it('import streams the file into the database in checksummed 1 MiB chunks; a worker reads it back intact; it is dropped when the job ends', async () => {
    const file = writeWav(join(tmp.dir, 'standup.wav'), 40); // 1.28 MB: two chunks
    const bytes = readFileSync(file);
    const job = await store.imports.enqueue({ filePath: file, requestKey: 'k1' });
    expect(job.processing_status).toBe('queued');
    const back = await store.jobs.recording(job.job_id);
    expect(back).not.toBeNull();
    expect(await collect(back!)).toEqual({ sha: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, chunks: 2 });

    // A damaged chunk is refused, not passed on.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("UPDATE recording_chunks SET data = overlay(data placing '\\x00'::bytea from 10) WHERE job_id = $1 AND seq = 1", [job.job_id]);
      await expect(collect((await store.jobs.recording(job.job_id))!)).rejects.toThrow(`Chunk 1 of the recording of import ${job.job_id} is damaged (checksum mismatch).`);

      // The job ends (here: fails): its stored recording goes.
      const claimed = (await store.jobs.claimNext('wrk_test', 60_000))!;
      expect(claimed.id).toBe(job.job_id);
      expect(await store.jobs.fail({ jobId: claimed.id, workerId: 'wrk_test', leaseMs: 60_000 }, 'unreadable')).toBe(true);
      expect((await client.query('SELECT count(*)::int AS n FROM recording_chunks WHERE job_id = $1', [job.job_id])).rows[0].n).toBe(0);
      expect(await store.jobs.recording(job.job_id)).toBeNull();
    } finally {
      await client.end();
    }
  });

  it('import_recording of a 256 MiB file: `syntheo mcp` grows by a bound that does not depend on the file (under 64 MiB of RSS)', async () => {
    const file = bigWav(join(tmp.dir, 'allhands.wav'), 256 * MiB);
    const mcp = await connectV2(url, 'modern');
    try {
      const pid = (mcp.client.transport as unknown as { pid: number }).pid;
      // Connected, the driver loaded, the tools answered once: what is measured is the import alone.
      await call(mcp.client, 'list_meetings', {});
      await store.workers.heartbeat('wrk_test');
      // The high-water mark starts again from the RSS now (clear_refs 5: reset the peak).
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      const before = memory(pid);
      const job = await call<{ job_id: string; processing_status: string }>(mcp.client, 'import_recording', { file_path: file });
      expect(job.processing_status).toBe('queued');
      // The kernel's high-water mark of the process's RSS, over its RSS just before the call.
      const growth = (memory(pid).peak - before.rss) / MiB;
      // Two reused read buffers (one chunk inserted while the next is read, none further ahead); what is
      // left is the driver's copy of each chunk into its message, freed by V8 at its external-memory
      // threshold. Measured (bench/import-memory.ts, Node 20): +38 MiB for 256 MiB, +40 MiB for 1 GiB;
      // before (a stream allocating every chunk, a buffer per read for the sha256): +70 and +80 MiB.
      expect(growth).toBeLessThan(64);
      const stored = await collect((await store.jobs.recording(job.job_id))!);
      expect(stored.size).toBe(256 * MiB + 44);
      expect(stored.chunks).toBe(257);
    } finally {
      await mcp.close();
    }
  });
});
