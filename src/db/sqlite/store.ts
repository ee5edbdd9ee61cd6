import { openDatabase, schemaState, type OpenOptions, type Sqlite, type SyntheoDb } from '../open.js';
import type { OnSchemaNotice } from '../model/schema-notice.js';
import { checkpointIfLarge } from '../checkpoint.js';
import { stmt } from '../statements.js';
import type { WordTuple } from '../queries/export.js';
import type { ImportRequest } from '../queries/imports.js';
import type { JobLease, ShutdownCause, WorkerRegistration } from '../store.js';
import { isWorkerAlive, latestWorker } from '../queries/workers.js';
import { deleteSetting, readSettings, writeSetting } from '../queries/settings.js';
import { SyntheoError } from '../../errors.js';
import { isSqliteError, sqliteError } from './errors.js';
import { ACTIVE_STATUSES_SQL, type ProcessingStatus } from '../schema/enums.js';
import type { LoadOptions, Store, TranscriptStore } from '../store.js';
import type { Page } from '../queries/types.js';

export interface SqliteStoreOptions {
  /** Create the folder, file and schema when missing (mcp, worker, writing CLI commands). */
  create: boolean;
  /**
   * Open the file on the first call instead of now (`syntheo mcp`: discover, initialize and tools/list
   * never pay for better-sqlite3 or the schema check). A failed open is not remembered, so fixing the
   * file or its permissions is enough for the next call to succeed.
   */
  lazy?: boolean;
  /** Told when the file's schema is upgraded, or when opening waits for another process (src/db/model/schema-notice.ts). */
  onSchema?: OnSchemaNotice;
}

/**
 * The Store on one SQLite file. Queries stay synchronous better-sqlite3 statements (src/db/queries);
 * each method runs one of them on the connection and maps SQLite's error codes to StorageError here,
 * the one place that knows them.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions): Store {
  const connection = new Connection(path, { create: options.create, ...(options.onSchema && { onSchema: options.onSchema }) });
  if (!options.lazy) connection.get();
  const run = <A extends unknown[], R>(fn: (sqlite: Sqlite, ...args: A) => R) =>
    async (...args: A): Promise<Awaited<R>> => {
      try {
        return await fn(connection.get(), ...args);
      } catch (error) {
        throw connection.failed(error);
      }
    };
  // A write of one statement, run as a transaction: the connection checks there that the path still
  // names the open file (src/db/open.ts), so a write into a deleted or moved file is refused, not lost.
  const write = <A extends unknown[], R>(fn: (sqlite: Sqlite, ...args: A) => R) =>
    run((sqlite: Sqlite, ...args: A): R => sqlite.transaction(() => fn(sqlite, ...args)).immediate());
  // A domain's query module loads on its first call: a command that reads the settings does not load
  // the meetings, search or job queries, and the first read of `syntheo mcp` not the diff library.
  const later =
    <M, A extends unknown[], R>(load: () => Promise<M>, pick: (m: M) => (sqlite: Sqlite, ...args: A) => R) =>
    async (...args: A): Promise<Awaited<R>> =>
      run(pick(await load()))(...args);
  const laterWrite =
    <M, A extends unknown[], R>(load: () => Promise<M>, pick: (m: M) => (sqlite: Sqlite, ...args: A) => R) =>
    async (...args: A): Promise<Awaited<R>> =>
      write(pick(await load()))(...args);
  const meetingQueries = once(() => import('../queries/meetings.js'));
  const folderQueries = once(() => import('../queries/folders.js'));
  const transcriptQueries = once(() => import('../queries/transcripts.js'));
  const searchQueries = once(() => import('../queries/search.js'));
  const importQueries = once(() => import('../queries/imports.js'));
  const upkeepQueries = once(async () => ({
    ...(await import('../queries/fts-upkeep.js')),
    ...(await import('../queries/search-bits.js')),
    ...(await import('../queries/meeting-bits.js')),
  }));
  /** The index the next round of merging begins with: one large index does not keep the others waiting. */
  let mergeTurn = 0;
  const importListQueries = once(() => import('../queries/imports-list.js'));
  const jobQueries = once(() => import('../queries/jobs.js'));
  const proposalQueries = once(() => import('../queries/proposals.js'));
  const exportQueries = once(() => import('../queries/export.js'));
  const integrityQueries = once(() => import('../queries/integrity.js'));

  const transcripts: TranscriptStore = {
    page: later(transcriptQueries, (q) => (sqlite: Sqlite, meetingId: string, page: Page, options?: { wordTimings: boolean }) => q.getTranscriptPageOrThrow(sqlite, meetingId, page, options ?? { wordTimings: true })) as TranscriptStore['page'],
    allWords: later(transcriptQueries, (q) => (sqlite: Sqlite, meetingId: string): WordTuple[] | null => {
      const transcript = stmt<{ id: string }>(sqlite, 'SELECT id FROM transcripts WHERE meeting_id = ?').get(meetingId);
      return transcript === undefined ? null : q.allTranscriptWords(sqlite, transcript.id);
    }),
    wordCount: run(
      (sqlite, meetingId: string) =>
        stmt<{ n: number }>(sqlite, 'SELECT coalesce((SELECT word_count FROM transcripts WHERE meeting_id = ?), 0) AS n').get(meetingId)!.n,
    ),
  };

  return {
    engine: 'sqlite',
    location: path,
    meetings: {
      list: later(meetingQueries, (q) => q.listMeetings),
      get: later(meetingQueries, (q) => q.getMeetingOrThrow),
      export: later(exportQueries, (q) => q.exportMeetingOrThrow),
      title: run((sqlite, id: string) => stmt<{ title: string }>(sqlite, 'SELECT title FROM meetings WHERE id = ?').get(id)?.title ?? null),
      currentContent: run((sqlite, t: { kind: 'memo' | 'summary'; meetingId: string; targetId: string | null }) =>
        t.kind === 'memo'
          ? (stmt<{ note: string }>(sqlite, 'SELECT note FROM meetings WHERE id = ?').get(t.meetingId)?.note ?? null)
          : t.targetId === null
            ? null
            : (stmt<{ content: string }>(sqlite, 'SELECT content FROM summaries WHERE id = ?').get(t.targetId)?.content ?? null),
      ),
      counts: run((sqlite) =>
        stmt<{ meetings: number; folders: number; pending_proposals: number; active_imports: number }>(
          sqlite,
          `SELECT (SELECT count(*) FROM meetings) AS meetings, (SELECT count(*) FROM folders) AS folders,
                  (SELECT count(*) FROM proposals WHERE status = 'pending') AS pending_proposals,
                  (SELECT count(*) FROM recording_imports WHERE status NOT IN ('done', 'failed')
                     AND (lease_expires_at IS NULL OR lease_expires_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) AS active_imports`,
        ).get()!,
      ),
    },
    folders: {
      list: later(folderQueries, (q) => q.listFolders),
      get: later(folderQueries, (q) => (sqlite: Sqlite, path: string) => q.getFolderByPathOrThrow(sqlite, path)),
      existing: run((sqlite, paths: readonly string[]) => {
        const one = stmt(sqlite, 'SELECT 1 FROM folders WHERE path = ?');
        return new Set(paths.filter((p) => one.get(p) !== undefined));
      }),
      ensure: later(folderQueries, (q) => q.ensureFolderPath),
      paths: run((sqlite) => stmt<{ path: string }>(sqlite, 'SELECT path FROM folders ORDER BY path').all().map((f) => f.path)),
    },
    series: {
      get: later(meetingQueries, (q) => q.getSeriesRefOrThrow),
      history: later(meetingQueries, (q) => q.seriesHistoryOrThrow),
      meetings: later(meetingQueries, (q) => q.seriesMeetings),
    },
    transcripts,
    search: { transcripts: later(searchQueries, (q) => q.searchTranscripts) },
    proposals: {
      proposeSummaryEdit: later(proposalQueries, (q) => q.proposeSummaryEdit),
      proposeMemoEdit: later(proposalQueries, (q) => q.proposeMemoEdit),
      list: later(proposalQueries, (q) => q.listProposals),
      get: later(proposalQueries, (q) => q.getProposalOrThrow),
      decline: later(proposalQueries, (q) => q.declineProposalOrThrow),
      apply: later(proposalQueries, (q) => q.applyProposalOrThrow),
      seed: write((sqlite, p: { id: string; meetingId: string; kind: 'summary' | 'memo'; targetId: string | null; content: string; baseContent: string; proposedBy: string; createdAt: string }) => {
        stmt(
          sqlite,
          `INSERT OR IGNORE INTO proposals (id, meeting_id, kind, target_id, content, base_content, status, proposed_by, created_at)
           VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
        ).run(p.id, p.meetingId, p.kind, p.targetId, p.content, p.baseContent, p.proposedBy, p.createdAt);
      }),
    },
    imports: {
      enqueue: later(importQueries, (q) => (sqlite: Sqlite, request: ImportRequest) => q.enqueueImport(sqlite, request)),
      get: later(importQueries, (q) => q.getImportOrThrow),
      forMeeting: later(importQueries, (q) => q.getImportForMeeting),
      list: later(importListQueries, (q) => q.listImports),
      hasFile: later(importQueries, (q) => q.hasImportOfFile),
      hasUnder: later(importQueries, (q) => q.hasImportUnder),
      findByContent: later(importQueries, (q) => (sqlite: Sqlite, sha256: string, options?: { includeFailed?: boolean }) => q.findImportByContent(sqlite, sha256, options)),
      statuses: run((sqlite, ids: readonly string[]) => {
        // As the job reads (toRecordingImport): held under an expired lease, it is failed.
        const one = stmt<{ status: ProcessingStatus }>(
          sqlite,
          `SELECT CASE WHEN status IN ${ACTIVE_STATUSES_SQL} AND lease_expires_at <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now') THEN 'failed' ELSE status END AS status
             FROM recording_imports WHERE id = ?`,
        );
        const found = new Map<string, ProcessingStatus>();
        for (const id of ids) {
          const row = one.get(id);
          if (row) found.set(id, row.status);
        }
        return found;
      }),
    },
    jobs: {
      hasQueued: later(jobQueries, (q) => q.hasQueuedJob),
      claimNext: laterWrite(jobQueries, (q) => (sqlite: Sqlite, workerId: string, leaseMs: number) => q.claimNextJob(sqlite, workerId, leaseMs)),
      renewLease: laterWrite(jobQueries, (q) => (sqlite: Sqlite, lease: JobLease) => q.renewLease(sqlite, lease)),
      recordAudioFacts: later(jobQueries, (q) => q.recordAudioFacts),
      storeFileTranscript: later(jobQueries, (q) => q.storeFileTranscript),
      appendWords: later(jobQueries, (q) => q.appendJobWords),
      startChunkProgress: later(jobQueries, (q) => q.startChunkProgress),
      finishTranscription: later(jobQueries, (q) => q.finishTranscription),
      complete: later(jobQueries, (q) => q.completeJob),
      fail: laterWrite(jobQueries, (q) => (sqlite: Sqlite, lease: JobLease, error: string) => q.failJob(sqlite, lease, error)),
      interrupt: laterWrite(jobQueries, (q) => (sqlite: Sqlite, lease: JobLease, stage: string, cause: ShutdownCause) => q.interruptJob(sqlite, lease, stage, cause)),
      sweepExpiredLeases: later(jobQueries, (q) => (sqlite: Sqlite) => q.sweepExpiredLeases(sqlite)),
      // The worker shares the machine, and reads the file where it is.
      recording: async () => null,
    },
    workers: {
      register: laterWrite(jobQueries, (q) => (sqlite: Sqlite, registration: WorkerRegistration) => q.registerWorker(sqlite, registration)),
      heartbeat: laterWrite(jobQueries, (q) => (sqlite: Sqlite, workerId: string) => q.heartbeatWorker(sqlite, workerId)),
      markStopped: laterWrite(jobQueries, (q) => (sqlite: Sqlite, workerId: string) => q.markWorkerStopped(sqlite, workerId)),
      latest: run((sqlite) => latestWorker(sqlite)),
      isAlive: run((sqlite) => isWorkerAlive(sqlite)),
    },
    settings: {
      read: run(readSettings),
      write: write(writeSetting),
      delete: write(deleteSetting),
    },
    admin: {
      schema: run(schemaState),
      integrity: later(integrityQueries, (q) => q.checkIntegrity),
      repairSearch: later(integrityQueries, (q) => q.repairSearchIndex),
      load: later(exportQueries, (q) => (sqlite: Sqlite, input: unknown, options?: LoadOptions) => q.loadMeetings(sqlite, input, options)),
      // Merging first: the checkpoint then takes the pages it wrote too.
      maintain: later(upkeepQueries, (q) => (sqlite: Sqlite) => {
        if (connection.path === ':memory:') return null;
        const merged = q.mergeFtsIndexes(sqlite, { first: mergeTurn++ });
        const bits = q.searchBitsRound(sqlite);
        const meetingBits = q.meetingBitsRound(sqlite);
        return { ...checkpointIfLarge(sqlite), merged, bits, meetingBits };
      }),
    },
    close: async () => connection.close(),
  };
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => (loaded ??= load());
}

/** One better-sqlite3 connection, opened now or on first use, dropped after a read-only failure. */
class Connection {
  private db: SyntheoDb | undefined;

  constructor(
    readonly path: string,
    private readonly options: OpenOptions,
  ) {}

  get(): Sqlite {
    this.db ??= openDatabase(this.path, this.options);
    return this.db.sqlite;
  }

  /**
   * Maps a failed call's error. A connection that found the file read-only stays read-only for its
   * whole life (SQLite falls back to O_RDONLY at open), so it is dropped and the next call opens the
   * file afresh: making the file writable is then enough.
   */
  failed(error: unknown): unknown {
    if (error instanceof SyntheoError || !isSqliteError(error)) return error;
    if (error.code.startsWith('SQLITE_READONLY') && error.code !== 'SQLITE_READONLY_DBMOVED') this.close();
    return sqliteError(error);
  }

  close(): void {
    this.db?.close();
    this.db = undefined;
  }
}
