import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { AUDIO_FORMAT_LIST } from '../../audio/sniff.js';
import { isSyntheoError } from '../../errors.js';
import type { RecordingImport, Store } from '../../db/store.js';
import { MultipartError, readMultipart } from '../../http/multipart.js';
import { clock } from '../../text/clock.js';
import type { Logger } from '../../log.js';
import { intParam, pager, timeTag } from '../format.js';
import { html, type Html } from '../html.js';
import { page, type Notice } from '../layout.js';
import type { AppEnv } from '../server.js';

const IMPORTS_PER_PAGE = 30;
const TERMINAL = new Set(['done', 'failed']);

export interface UploadOptions {
  /** Uploaded recordings are kept here (the worker reads them, the meeting page plays them). */
  dir: string;
  /** Largest upload accepted, in bytes. */
  maxBytes: number;
  /** How often the event stream looks at the jobs. */
  pollMs: number;
}

/** What a person sees of a job, in the table and in each progress event. */
export function jobView(j: RecordingImport, now = Date.now()): { id: string; state: string; progress: string; elapsed: string; error: string | null; fraction: number | null } {
  const from = Date.parse(j.started_at ?? j.created_at);
  const to = j.finished_at ? Date.parse(j.finished_at) : now;
  const chunks = j.progress;
  let progress = '';
  if (chunks && chunks.chunks_total > 0) progress = `${chunks.chunks_done}/${chunks.chunks_total} chunks`;
  if (j.processing_status === 'summarizing' || j.processing_status === 'done') progress = `summary ${j.summary_status.replace(/_/g, ' ')}`;
  return {
    id: j.job_id,
    state: j.processing_status,
    progress,
    elapsed: Number.isFinite(from) ? clock(Math.max(0, to - from)) : '',
    error: j.error,
    fraction: chunks && chunks.chunks_total > 0 ? chunks.chunks_done / chunks.chunks_total : j.processing_status === 'done' ? 1 : null,
  };
}

export async function importsPage(c: Context<AppEnv>, store: Store, notice: Notice | null = null, status: 200 | 400 | 413 = 200): Promise<Response> {
  const offset = intParam(c.req.query('offset'), 0);
  const [{ imports, pagination }, worker] = await Promise.all([store.imports.list({ status: 'all' }, { limit: IMPORTS_PER_PAGE, offset }), store.workers.isAlive()]);
  const active = imports.filter((j) => !TERMINAL.has(j.processing_status)).map((j) => j.job_id);
  const fresh = c.req.query('job');
  const body = html`${worker ? '' : html`<p class="notice warn">No import worker is running: recordings wait in the queue. Start <code>syntheo app</code> without --no-worker, or <code>syntheo-worker</code>.</p>`}
<form method="post" action="/imports" enctype="multipart/form-data" class="drop">
<p><label>Recording (${AUDIO_FORMAT_LIST}, a video, or a transcript file) <input type="file" name="recording" required></label></p>
<p><label>Title (default: the file name) <input type="text" name="title" maxlength="200"></label></p>
<p><button type="submit" class="primary">Import</button> <span class="muted">or drop a file here</span></p>
</form>
<h2>Imports</h2>
${
  imports.length === 0
    ? html`<p class="muted">No imports yet.</p>`
    : html`<table${active.length > 0 ? html` data-events="/imports/events?ids=${active.join(',')}"` : ''}>
<caption class="skip">Imports, newest first</caption>
<thead><tr><th scope="col">Meeting</th><th scope="col">State</th><th scope="col">Progress</th><th scope="col">Elapsed</th><th scope="col">Queued</th><th scope="col">Error</th></tr></thead>
<tbody>${imports.map((j) => row(j, j.job_id === fresh))}</tbody>
</table>`
}
${pager('/imports', {}, pagination, 'imports')}`;
  return c.html(page({ title: 'Imports', section: 'imports', body, notice }).value, status);
}

function row(j: RecordingImport, fresh: boolean): Html {
  const v = jobView(j);
  return html`<tr id="job-${j.job_id}" data-state="${v.state}"${fresh ? html` class="fresh"` : ''}>
<td><a href="/meetings/${encodeURIComponent(j.meeting_id)}">${j.title}</a></td>
<td><span class="badge ${v.state}" data-field="state">${v.state}</span></td>
<td><span data-field="progress">${v.progress}</span></td>
<td data-field="elapsed">${v.elapsed}</td>
<td>${timeTag(j.created_at)}</td>
<td data-field="error">${v.error ?? ''}</td>
</tr>`;
}

/** A file name from a browser, reduced to a plain base name (it becomes the default title and the file's name on disk). */
export function safeFileName(name: string): string {
  const base = basename(name.replace(/\\/g, '/'))
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .replace(/^[.\s]+/, '')
    .slice(0, 120)
    .trim();
  return base === '' ? 'recording' : base;
}

/**
 * The upload streams to a new folder under the data folder (bounded size, a few buffers of memory),
 * then goes through the same enqueue as `syntheo imports add`: content sniffed, duplicates refused,
 * the worker's heartbeat required. A refused file is removed, and the page says why.
 */
export async function uploadRecording(c: Context<AppEnv>, store: Store, opts: UploadOptions, log: Logger): Promise<Response> {
  await mkdir(opts.dir, { recursive: true, mode: 0o700 });
  const dir = await mkdtemp(join(opts.dir, 'upload-'));
  const drop = () => rm(dir, { recursive: true, force: true });
  let filePath: string | undefined;
  let title: string | undefined;
  try {
    const form = await readMultipart(c.env.incoming, {
      maxBytes: opts.maxBytes,
      maxFieldBytes: 1024,
      maxParts: 4,
      fileDestination: ({ field, filename, index }) => (field === 'recording' && index === 0 ? join(dir, safeFileName(filename)) : null),
    });
    const file = form.files.find((f) => f.path !== null && f.size > 0);
    title = form.fields.get('title')?.[0]?.trim().slice(0, 200) || undefined;
    if (!file) {
      await drop();
      return importsPage(c, store, { level: 'bad', text: 'Choose a recording to import (the file was empty or missing).' }, 400);
    }
    filePath = file.path!;
  } catch (error) {
    await drop();
    if (error instanceof MultipartError) return importsPage(c, store, { level: 'bad', text: error.message }, error.status === 413 ? 413 : 400);
    throw error;
  }
  try {
    const job = await store.imports.enqueue({ filePath, title, duplicates: 'refuse' });
    log.info({ jobId: job.job_id, meetingId: job.meeting_id }, 'recording uploaded');
    return c.redirect(`/imports?job=${encodeURIComponent(job.job_id)}`, 303);
  } catch (error) {
    await drop();
    if (!isSyntheoError(error) || error.kind === 'internal' || error.kind === 'storage') throw error;
    return importsPage(c, store, { level: 'bad', text: `Not imported: ${error.message}` }, 400);
  }
}

/** Server-sent events: one `job` event per change of the listed jobs, `end` when they have all finished. */
export function importEvents(c: Context<AppEnv>, store: Store, opts: UploadOptions): Response {
  const ids = (c.req.query('ids') ?? '')
    .split(',')
    .filter((id) => /^job_[\w-]{1,64}$/.test(id))
    .slice(0, IMPORTS_PER_PAGE);
  return streamSSE(c, async (stream) => {
    const sent = new Map<string, string>();
    const deadline = Date.now() + 60 * 60_000;
    while (!stream.aborted && Date.now() < deadline) {
      let open = 0;
      for (const id of ids) {
        let job: RecordingImport;
        try {
          job = await store.imports.get(id);
        } catch (error) {
          if (isSyntheoError(error) && error.kind === 'not_found') continue;
          throw error;
        }
        const data = JSON.stringify(jobView(job));
        if (sent.get(id) !== data) {
          sent.set(id, data);
          await stream.writeSSE({ event: 'job', data });
        }
        if (!TERMINAL.has(job.processing_status)) open++;
      }
      if (open === 0) break;
      await stream.sleep(opts.pollMs);
    }
    await stream.writeSSE({ event: 'end', data: '' });
  });
}
