import { openDatabase, schemaState, type Sqlite, type SyntheoDb } from '../open.js';
import { checkpointIfLarge } from '../checkpoint.js';
import { stmt } from '../statements.js';
import { getMeetingOrThrow, getSeriesRefOrThrow, listMeetings, seriesHistoryOrThrow, seriesMeetings } from '../queries/meetings.js';
import { ensureFolderPath, getFolderByPathOrThrow, listFolders } from '../queries/folders.js';
import { exportMeetingOrThrow, loadMeetings, type WordTuple } from '../queries/export.js';
import { allTranscriptWords, getTranscriptPageOrThrow } from '../queries/transcripts.js';
import { searchTranscripts } from '../queries/search.js';
import { applyProposalOrThrow, declineProposalOrThrow, getProposalOrThrow, listProposals, proposeMemoEdit, proposeSummaryEdit } from '../queries/proposals.js';
import { enqueueImport, findImportByContent, getImportForMeeting, getImportOrThrow, hasImportOfFile, hasImportUnder } from '../queries/imports.js';
import { listImports } from '../queries/imports-list.js';
import * as jobs from '../queries/jobs.js';
import { isWorkerAlive, latestWorker } from '../queries/workers.js';
import { deleteSetting, readSettings, writeSetting } from '../queries/settings.js';
import { checkIntegrity, repairSearchIndex } from '../queries/integrity.js';
import { SyntheoError } from '../../errors.js';
import { isSqliteError, sqliteError } from './errors.js';
import type { ProcessingStatus } from '../schema/enums.js';
import type { Store, TranscriptStore } from '../store.js';

export interface SqliteStoreOptions {
  /** Create the folder, file and schema when missing (mcp, worker, writing CLI commands). */
  create: boolean;
  /**
   * Open the file on the first call instead of now (`syntheo mcp`: discover, initialize and tools/list
   * never pay for better-sqlite3 or the schema check). A failed open is not remembered, so fixing the
   * file or its permissions is enough for the next call to succeed.
   */
  lazy?: boolean;
}

/**
 * The Store on one SQLite file. Queries stay synchronous better-sqlite3 statements (src/db/queries);
 * each method runs one of them on the connection and maps SQLite's error codes to StorageError here,
 * the one place that knows them.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions): Store {
  const connection = new Connection(path, options.create);
  if (!options.lazy) connection.get();
  const run = <A extends unknown[], R>(fn: (sqlite: Sqlite, ...args: A) => R) =>
    async (...args: A): Promise<Awaited<R>> => {
      try {
        return await fn(connection.get(), ...args);
      } catch (error) {
        throw connection.failed(error);
      }
    };

  const transcripts: TranscriptStore = {
    page: run((sqlite, meetingId: string, page, options?: { wordTimings: boolean }) => getTranscriptPageOrThrow(sqlite, meetingId, page, options ?? { wordTimings: true })) as TranscriptStore['page'],
    allWords: run(allTranscriptWordsOf),
    wordCount: run(
      (sqlite, meetingId: string) =>
        stmt<{ n: number }>(sqlite, 'SELECT coalesce((SELECT word_count FROM transcripts WHERE meeting_id = ?), 0) AS n').get(meetingId)!.n,
    ),
  };

  return {
    engine: 'sqlite',
    location: path,
    meetings: {
      list: run(listMeetings),
      get: run(getMeetingOrThrow),
      export: run(exportMeetingOrThrow),
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
                  (SELECT count(*) FROM recording_imports WHERE status NOT IN ('done', 'failed')) AS active_imports`,
        ).get()!,
      ),
    },
    folders: {
      list: run(listFolders),
      get: run((sqlite, path: string) => getFolderByPathOrThrow(sqlite, path)),
      existing: run((sqlite, paths: readonly string[]) => {
        const one = stmt(sqlite, 'SELECT 1 FROM folders WHERE path = ?');
        return new Set(paths.filter((p) => one.get(p) !== undefined));
      }),
      ensure: run(ensureFolderPath),
      paths: run((sqlite) => stmt<{ path: string }>(sqlite, 'SELECT path FROM folders ORDER BY path').all().map((f) => f.path)),
    },
    series: {
      get: run(getSeriesRefOrThrow),
      history: run(seriesHistoryOrThrow),
      meetings: run(seriesMeetings),
    },
    transcripts,
    search: { transcripts: run(searchTranscripts) },
    proposals: {
      proposeSummaryEdit: run(proposeSummaryEdit),
      proposeMemoEdit: run(proposeMemoEdit),
      list: run(listProposals),
      get: run(getProposalOrThrow),
      decline: run(declineProposalOrThrow),
      apply: run(applyProposalOrThrow),
      seed: run((sqlite, p: { id: string; meetingId: string; kind: 'summary' | 'memo'; targetId: string | null; content: string; baseContent: string; proposedBy: string; createdAt: string }) => {
        stmt(
          sqlite,
          `INSERT OR IGNORE INTO proposals (id, meeting_id, kind, target_id, content, base_content, status, proposed_by, created_at)
           VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
        ).run(p.id, p.meetingId, p.kind, p.targetId, p.content, p.baseContent, p.proposedBy, p.createdAt);
      }),
    },
    imports: {
      enqueue: run((sqlite, request: Parameters<typeof enqueueImport>[1]) => enqueueImport(sqlite, request)),
      get: run(getImportOrThrow),
      forMeeting: run(getImportForMeeting),
      list: run(listImports),
      hasFile: run(hasImportOfFile),
      hasUnder: run(hasImportUnder),
      findByContent: run((sqlite, sha256: string, options?: { includeFailed?: boolean }) => findImportByContent(sqlite, sha256, options)),
      statuses: run((sqlite, ids: readonly string[]) => {
        const one = stmt<{ status: ProcessingStatus }>(sqlite, 'SELECT status FROM recording_imports WHERE id = ?');
        const found = new Map<string, ProcessingStatus>();
        for (const id of ids) {
          const row = one.get(id);
          if (row) found.set(id, row.status);
        }
        return found;
      }),
    },
    jobs: {
      hasQueued: run(jobs.hasQueuedJob),
      claimNext: run((sqlite, workerId: string, leaseMs: number) => jobs.claimNextJob(sqlite, workerId, leaseMs)),
      renewLease: run((sqlite, lease: jobs.JobLease) => jobs.renewLease(sqlite, lease)),
      recordAudioFacts: run(jobs.recordAudioFacts),
      storeFileTranscript: run(jobs.storeFileTranscript),
      appendWords: run(jobs.appendJobWords),
      startChunkProgress: run(jobs.startChunkProgress),
      finishTranscription: run(jobs.finishTranscription),
      complete: run(jobs.completeJob),
      fail: run((sqlite, lease: jobs.JobLease, error: string) => jobs.failJob(sqlite, lease, error)),
      interrupt: run((sqlite, lease: jobs.JobLease, stage: string, cause: Parameters<typeof jobs.interruptJob>[3]) => jobs.interruptJob(sqlite, lease, stage, cause)),
      sweepExpiredLeases: run((sqlite) => jobs.sweepExpiredLeases(sqlite)),
    },
    workers: {
      register: run((sqlite, registration: jobs.WorkerRegistration) => jobs.registerWorker(sqlite, registration)),
      heartbeat: run((sqlite, workerId: string) => jobs.heartbeatWorker(sqlite, workerId)),
      markStopped: run((sqlite, workerId: string) => jobs.markWorkerStopped(sqlite, workerId)),
      latest: run((sqlite) => latestWorker(sqlite)),
      isAlive: run((sqlite) => isWorkerAlive(sqlite)),
    },
    settings: {
      read: run(readSettings),
      write: run(writeSetting),
      delete: run(deleteSetting),
    },
    admin: {
      schema: run(schemaState),
      integrity: run(checkIntegrity),
      repairSearch: run(repairSearchIndex),
      load: run((sqlite, input: unknown, options?: Parameters<typeof loadMeetings>[2]) => loadMeetings(sqlite, input, options)),
      maintain: run((sqlite) => (connection.path === ':memory:' ? null : checkpointIfLarge(sqlite))),
    },
    close: async () => connection.close(),
  };
}

function allTranscriptWordsOf(sqlite: Sqlite, meetingId: string): WordTuple[] | null {
  const transcript = stmt<{ id: string }>(sqlite, 'SELECT id FROM transcripts WHERE meeting_id = ?').get(meetingId);
  return transcript === undefined ? null : allTranscriptWords(sqlite, transcript.id);
}

/** One better-sqlite3 connection, opened now or on first use, dropped after a read-only failure. */
class Connection {
  private db: SyntheoDb | undefined;

  constructor(
    readonly path: string,
    private readonly create: boolean,
  ) {}

  get(): Sqlite {
    this.db ??= openDatabase(this.path, { create: this.create });
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
