import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runJson } from '../cli/cli.js';
import { openTestDb } from '../support/db.js';
import { serve } from '../support/engine.js';
import { startFakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { startLlmServer } from '../support/llm-server.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { startWorker, waitForImport } from '../support/worker-process.js';

// A database failure inside a job reaches the worker as the Store's StorageError, already worded: the
// job's error says what is wrong with the database and what to do, and the worker goes on.

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a storage failure in a job', () => {
  it('fails the job with the Store’s message (the missing table, and `syntheo doctor`), and the worker keeps running', async () => {
    const db = openTestDb();
    cleanups.push(() => db.cleanup());
    const served = await serve(db.path);
    const store = await served.store();
    const [stt, llm] = await Promise.all([startFakeTranscriptionServer(), startLlmServer()]);
    cleanups.push(() => stt.close(), () => llm.close());
    await store.settings.write('transcription.url', stt.url);
    await store.settings.write('llm.url', llm.url);
    await store.settings.write('llm.model', 'test-model');
    const w = await startWorker(served.location);
    cleanups.push(async () => void (await w.stop('SIGKILL')));
    // Another program broke the schema under the running worker: the summary has nowhere to go.
    await served.sql('ALTER TABLE summaries RENAME TO summaries_elsewhere');

    const file = join(db.dir, 'meeting.mp3');
    await copyFile(fixturePath('budget', 'mp3'), file);
    const queued = await store.imports.enqueue({ filePath: file });
    const job = await waitForImport(store, queued.job_id, { timeoutMs: 30_000 });
    expect(job).toMatchObject({ processing_status: 'failed', summary_status: 'failed' });
    expect(job.error).toBe('Summarising failed: The database lacks part of the schema Syntheo needs. Run `syntheo doctor` to see what is missing and how to repair it.');
    expect(llm.requests).toHaveLength(1);
    // Not a crash: the worker still stops cleanly, and its log (read to the end once it has exited: the
    // outcome line may trail the job's state in the database) has one outcome line.
    expect(await w.stop()).toEqual({ code: 0, signal: null });
    expect(w.logs.filter((l) => l.msg === 'import failed' && l.jobId === queued.job_id)).toHaveLength(1);
    expect(w.logs.some((l) => l.msg === 'unexpected error in an import' || l.msg === 'import crashed')).toBe(false);
    // What the message promises: `syntheo doctor` names what is missing.
    const doctor = await runJson(served.location, ['doctor']);
    expect(doctor.code).toBe(1);
    const schema = doctor.body.data.checks.find((c: { name: string }) => c.name === 'schema');
    expect(schema).toMatchObject({ level: 'fail', message: expect.stringMatching(/^missing from the database:\n.*\btable summaries$/m) });
  });
});
