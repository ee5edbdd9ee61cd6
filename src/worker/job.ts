import type { Dispatcher } from 'undici';
import { LeaseLostError } from '../db/model/jobs.js';
import type { ActiveStatus } from '../db/schema/enums.js';
import type { ClaimedJob, JobLease, Store } from '../db/store.js';
import { loadConfig, type Config, type ConfigKey } from '../config.js';
import { isSyntheoError } from '../errors.js';
import type { Logger } from '../log.js';
import { HttpClientError } from './clients/http.js';
import { RecordingUnreadableError } from './clients/transcription.js';
import { JobFailure, ShutdownError, redactSecrets } from './errors.js';
import { patiently, patientStore } from './patience.js';
import type { StageContext } from './pipeline/context.js';
import { importRecording } from './pipeline/importing.js';
import { localRecording, type LocalRecording } from './pipeline/recording.js';
import { summarizeMeeting } from './pipeline/summarizing.js';
import { transcribeRecording } from './pipeline/transcribing.js';
import type { WorkerTuning } from './tuning.js';

// One import from claim to done/failed: the stages in order, each leaving durable state behind, and
// exactly one outcome line in the log.

export interface JobEnvironment {
  store: Store;
  workerId: string;
  tuning: WorkerTuning;
  env: NodeJS.ProcessEnv;
  flags: Partial<Record<ConfigKey, string>>;
  logger: Logger;
  /** Shared by every request of every job. */
  http: Dispatcher;
}

/** A job in flight, as the loop sees it (lease renewal, shutdown). */
export interface RunningJob {
  readonly job: ClaimedJob;
  readonly lease: JobLease;
  readonly abort: AbortController;
  stage: ActiveStatus;
}

const STAGE_LABEL: Record<ActiveStatus, string> = {
  importing: 'Reading the recording failed',
  transcribing: 'Transcription failed',
  summarizing: 'Summarising failed',
};

export async function runJob(envir: JobEnvironment, running: RunningJob): Promise<void> {
  const { lease } = running;
  let { job } = running;
  let local: LocalRecording | undefined;
  const started = Date.now();
  const base = envir.logger.child({ jobId: job.id });
  // The job's writes wait out a database restarting (within the lease) rather than fail the job.
  const patience = { forMs: envir.tuning.leaseMs, signal: running.abort.signal, log: base };
  const store = patientStore(envir.store, lease, patience);
  let log = base.child({ stage: running.stage });
  let config: Config | undefined;
  const facts: Record<string, unknown> = {};
  const enter = (stage: ActiveStatus): StageContext => {
    running.stage = stage;
    log = base.child({ stage });
    return { store, job, lease, config: config!, tuning: envir.tuning, signal: running.abort.signal, log, http: envir.http };
  };
  try {
    // Settings are read per job, so `syntheo config set` applies without restarting the worker.
    try {
      config = loadConfig(await envir.store.settings.read(), envir.env, envir.flags);
    } catch (error) {
      throw new JobFailure(`The configuration is invalid: ${(error as Error).message}`);
    }
    // Read with the job's settings; the lease is the loop's too, so an interruption on shutdown keeps it as well.
    if (config.recordings.keep) lease.keepRecording = true;
    // PostgreSQL: the recording came with the job; the stages read a private local copy of it.
    local = await patiently('copy the stored recording', () => localRecording(store, job, running.abort.signal), patience);
    job = local.job;
    const audio = await importRecording(enter('importing'));
    facts.audioMs = audio.durationMs;
    if ('transcript' in audio) {
      // A transcript file: importing -> summarizing, nothing to transcribe.
      facts.transcriptFile = audio.transcript;
      facts.words = audio.words;
    } else {
      if (audio.extract) facts.extracted = true;
      const transcript = await transcribeRecording(enter('transcribing'), audio);
      facts.words = transcript.words;
      if (transcript.chunks !== null) facts.chunks = transcript.chunks;
    }
    const outcome = await summarizeMeeting(enter('summarizing'));
    log.info({ ...facts, status: 'done', summaryStatus: outcome.summaryStatus, ms: Date.now() - started, ...(outcome.note ? { summaryError: outcome.note } : {}) }, 'import done');
  } catch (raw) {
    const error = running.abort.signal.aborted ? running.abort.signal.reason : raw;
    const ms = Date.now() - started;
    if (error instanceof LeaseLostError) {
      log.warn({ ...facts, ms }, 'import abandoned: the lease was lost (the job was marked interrupted, or expired while this worker was stalled)');
      return;
    }
    if (error instanceof ShutdownError) {
      const written = await store.jobs.interrupt(lease, running.stage, error.shutdown);
      log.warn({ ...facts, status: 'failed', ms, written }, 'import interrupted by shutdown');
      return;
    }
    let said = describeFailure(error, running.stage, log);
    // The person knows their file, not the worker's private copy of it.
    if (job !== running.job) said = said.replaceAll(job.filePath, running.job.filePath);
    const message = redactSecrets(said, config);
    const written = await store.jobs.fail(lease, message);
    log.warn({ ...facts, status: 'failed', ms, error: message, ...(written ? {} : { written }) }, 'import failed');
  } finally {
    await local?.remove().catch((error: unknown) => log.warn({ err: error }, 'could not remove the local copy of the recording'));
  }
}

/** A message for the person reading get_recording_import: what failed and what to do; never a stack trace. */
function describeFailure(error: unknown, stage: ActiveStatus, log: Logger): string {
  if (error instanceof JobFailure) return error.message;
  if (error instanceof HttpClientError || error instanceof RecordingUnreadableError) return `${STAGE_LABEL[stage]}: ${error.message}`;
  // Storage failures arrive here as StorageError, already worded by the Store.
  if (isSyntheoError(error)) return `${STAGE_LABEL[stage]}: ${error.message}`;
  log.error({ err: error }, 'unexpected error in an import');
  return `${STAGE_LABEL[stage]}: unexpected error (${error instanceof Error ? error.message : String(error)}). See the worker's log for details.`;
}
