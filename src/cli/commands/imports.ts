import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT, optBool, optChoice, optString, pageFlags, pageOptions, type CommandContext, type CommandResult, type CommandSpec } from '../framework.js';
import { ago, elapsed, fields, pageFooter, paint, plural, shortTime, table } from '../text.js';
import { redrawn } from '../terminal.js';
import { IMPORT_PAGE_RULE, IMPORT_STATUS_FILTERS } from '../../db/model/imports-list.js';
import { clampPage } from '../../db/queries/pagination.js';
import type { Store } from '../../db/store.js';
import { clock } from '../../text/clock.js';
import type { RecordingImport } from '../../db/queries/types.js';

/** How often `--wait` reads the job's state. */
export const WAIT_POLL_MS = 500;

/** A person types paths relative to their shell; the domain wants them absolute. */
export function resolveUserPath(file: string, cwd = process.cwd()): string {
  if (file === '~') return homedir();
  if (file.startsWith('~/')) return join(homedir(), file.slice(2));
  return resolve(cwd, file);
}

function isTerminal(j: RecordingImport): boolean {
  return j.processing_status === 'done' || j.processing_status === 'failed';
}

function progressLabel(j: RecordingImport): string {
  return j.progress ? `chunks ${j.progress.chunks_done}/${j.progress.chunks_total}` : '';
}

/** The state, with chunk progress while a long recording is transcribed. */
function stateLabel(j: RecordingImport): string {
  return j.processing_status === 'transcribing' && j.progress ? `${j.processing_status}  ${progressLabel(j)}` : j.processing_status;
}

function sinceCreated(j: RecordingImport, now = Date.now()): number {
  return now - Date.parse(j.created_at);
}

/** Time the job took (or has taken so far). */
function jobDuration(j: RecordingImport): number {
  const end = j.finished_at ? Date.parse(j.finished_at) : Date.now();
  return end - Date.parse(j.created_at);
}

const add: CommandSpec = {
  name: 'imports add',
  summary: 'Import a recording: the worker transcribes and summarises it',
  description:
    'Create a meeting from a recording or a transcript on this computer (WAV, MP3, OGG, MP4, M4A, FLAC, WebM, AAC;\nany video or audio file ffmpeg reads; WebVTT, SRT, Whisper JSON or "Speaker: text" transcripts), detected from\nits content, exactly as the MCP tool import_recording does. Content imported before is refused (exit 1) naming\nits meeting, unless --allow-duplicate. The file is not copied: keep it in place\nuntil the job ends. A running worker (`syntheo-worker`) is required. With --wait, follow the job until it is\ndone (exit 0) or failed (exit 1); Ctrl-C stops waiting, not the import.',
  positionals: [{ name: 'file', required: true, description: 'Audio file (relative to the current directory, or absolute)' }],
  options: {
    title: { type: 'string', value: 'T', description: "Meeting title (default: the file's name without extension)" },
    folder: { type: 'string', value: 'PATH', description: 'Existing folder for the meeting (see `syntheo folders list`)' },
    key: { type: 'string', value: 'K', description: 'Request key: the same key returns the same job instead of importing twice' },
    'allow-duplicate': { type: 'boolean', description: 'Import even when the same content was imported before (else exit 1 naming that meeting)' },
    wait: { type: 'boolean', description: 'Wait for the job to finish, showing its progress' },
  },
  examples: [
    'syntheo imports add ~/Recordings/standup.m4a',
    'syntheo imports add call.wav --title "Call with ACME" --folder Customers/ACME --wait',
    'syntheo imports add call.wav --key call-2026-01-05 --json',
  ],
  async run(ctx) {
    const store = await ctx.store({ create: true });
    const asked = Date.now();
    const job = await store.imports.enqueue({
      filePath: resolveUserPath(ctx.positionals[0]!),
      title: optString(ctx.options, 'title'),
      folderPath: optString(ctx.options, 'folder'),
      requestKey: optString(ctx.options, 'key'),
      duplicates: optBool(ctx.options, 'allow-duplicate') ? 'allow' : 'refuse',
    });
    if (optBool(ctx.options, 'wait')) return waitForJob(ctx, store, job);
    // A job created before this command ran is the original of a reused --key.
    const replayed = Date.parse(job.created_at) < asked;
    const text = [
      !replayed
        ? `Queued ${job.job_id}: meeting "${job.title}" (${job.meeting_id}) from ${job.file_path} (${job.file_format}).`
        : `--key ${job.request_key} was used before: ${job.job_id} for "${job.title}" (${job.meeting_id}) is ${job.processing_status}; nothing new was queued.`,
      `Follow it with \`syntheo imports show ${job.job_id}\`, or pass --wait next time.`,
    ].join('\n');
    return { data: { ...job, replayed }, text };
  },
};

/**
 * Polls the job until done/failed. On a terminal one live line (state, elapsed time, chunk progress),
 * otherwise one line per change of state or progress; nothing but the final envelope with --json.
 */
async function waitForJob(ctx: CommandContext, store: Store, first: RecordingImport): Promise<CommandResult> {
  const c = paint(ctx.colour);
  const live = ctx.live;
  let job = first;
  let last = '';
  let warnedNoWorker = false;
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
  };
  process.once('SIGINT', onSigint);
  const line = (text: string) => {
    if (live) process.stdout.write(redrawn(text, ctx.colour));
    else ctx.print(text);
  };
  try {
    for (;;) {
      job = await store.imports.get(first.job_id);
      const key = stateLabel(job);
      if (live) line(`${c.cyan(job.processing_status)}  ${elapsed(sinceCreated(job))}${job.progress && job.processing_status === 'transcribing' ? `  ${progressLabel(job)}` : ''}`);
      else if (key !== last) line(`[${elapsed(sinceCreated(job))}] ${key}`);
      last = key;
      if (isTerminal(job)) break;
      if (!warnedNoWorker && !(await store.workers.isAlive())) {
        warnedNoWorker = true;
        const warning = 'No worker has a fresh heartbeat: the job will not move until `syntheo-worker` runs again (Ctrl-C stops waiting).';
        if (live) ctx.write(`\n${c.yellow(warning)}\n`);
        else ctx.print(warning);
      }
      await sleep(WAIT_POLL_MS);
      if (interrupted) break;
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
    if (live) process.stdout.write('\n');
  }
  if (interrupted && !isTerminal(job)) {
    ctx.print(`Stopped waiting; ${job.job_id} goes on in the worker. Follow it with \`syntheo imports show ${job.job_id}\`.`);
    return { data: job, text: '', exitCode: 130 };
  }
  const took = elapsed(jobDuration(job));
  if (job.processing_status === 'failed') {
    // The job's error is the outcome of this command: on stderr, as every failure.
    if (!ctx.json) ctx.warn(`syntheo: import ${job.job_id} failed after ${took}: ${job.error ?? 'no error recorded'}`);
    return { data: job, text: '', exitCode: EXIT.failed };
  }
  const words = await store.transcripts.wordCount(job.meeting_id);
  return {
    data: job,
    text: `Done in ${took}: "${job.title}" (${job.meeting_id}), ${plural(words, 'word')}, summary ${job.summary_status}.\nSee it with \`syntheo meetings get ${job.meeting_id}\`.`,
  };
}

function showText(j: RecordingImport): string {
  const now = Date.now();
  const rows: [string, string][] = [
    ['Job', j.job_id],
    ['Status', j.processing_status],
    ['Summary', j.summary_status],
    ['Meeting', `${j.title} (${j.meeting_id})`],
    ['File', `${j.file_path} (${j.file_format})`],
    ['Duration', j.audio_duration_ms === null ? 'not read yet' : clock(j.audio_duration_ms)],
  ];
  if (j.progress) rows.push(['Progress', progressLabel(j)]);
  if (j.request_key !== null) rows.push(['Request key', j.request_key]);
  rows.push(['Created', `${shortTime(j.created_at)} UTC (${ago(j.created_at, now)})`]);
  if (j.started_at) rows.push(['Started', `${shortTime(j.started_at)} UTC (${ago(j.started_at, now)})`]);
  if (j.finished_at) rows.push(['Finished', `${shortTime(j.finished_at)} UTC, took ${elapsed(jobDuration(j))}`]);
  if (j.error) rows.push(['Error', j.error]);
  return fields(rows);
}

const show: CommandSpec = {
  name: 'imports show',
  summary: 'Show the state of a recording import',
  description: 'Show the durable state of a recording import (MCP: get_recording_import). Reads only; starts no work.',
  positionals: [{ name: 'job', required: true, description: 'Job ID (job_...)' }],
  examples: ['syntheo imports show job_0123456789abcdef', 'syntheo --json imports show job_0123456789abcdef | jq -r .data.processing_status'],
  async run(ctx) {
    const store = await ctx.store({ create: false });
    const job = await store.imports.get(ctx.positionals[0]!);
    return { data: job, text: showText(job) };
  },
};

const list: CommandSpec = {
  name: 'imports list',
  summary: 'List recording imports, newest first',
  description: 'List recording imports, newest first. --status active lists the jobs not yet done or failed.',
  options: {
    status: { type: 'string', value: 'S', description: `One of ${IMPORT_STATUS_FILTERS.join(', ')} (default all)` },
    ...pageOptions(IMPORT_PAGE_RULE, 'imports'),
  },
  examples: ['syntheo imports list', 'syntheo imports list --status failed', 'syntheo imports list --status active --json'],
  async run(ctx) {
    const status = optChoice(ctx.options, 'status', IMPORT_STATUS_FILTERS) ?? 'all';
    const { limit, offset } = pageFlags(ctx.options);
    const store = await ctx.store({ create: false });
    const result = await store.imports.list({ status }, clampPage(IMPORT_PAGE_RULE, limit, offset));
    const p = result.pagination;
    const now = Date.now();
    const text =
      p.total === 0
        ? status === 'all'
          ? 'No recording imports yet. Start one with `syntheo imports add FILE`.'
          : `No ${status} imports.`
        : [
            result.imports.length
              ? table(result.imports, [
                  { header: 'JOB', value: (j) => j.job_id },
                  { header: 'STATUS', value: stateLabel },
                  { header: 'SUMMARY', value: (j) => j.summary_status },
                  { header: 'TITLE', value: (j) => j.title, max: 40 },
                  { header: 'MEETING', value: (j) => j.meeting_id },
                  { header: 'CREATED', value: (j) => ago(j.created_at, now) },
                  { header: 'ERROR', value: (j) => j.error ?? '', max: 60 },
                ])
              : '',
            pageFooter(p, 'import'),
          ]
            .filter(Boolean)
            .join('\n\n');
    return { data: result.imports, pagination: p, text };
  },
};

export const commands: CommandSpec[] = [add, show, list];
