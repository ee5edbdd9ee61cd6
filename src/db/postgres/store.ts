import { ACTIVE_STATUSES_SQL, type ProcessingStatus } from '../schema/enums.js';
import type { RepairProgress, Store, TranscriptStore } from '../store.js';
import type { JobLease, ShutdownCause, WorkerRegistration } from '../queries/jobs.js';
import { transcriptPageOf } from '../model/transcripts.js';
import { pagination } from '../queries/pagination.js';
import type { Page, TranscriptPage, TranscriptTurn, TranscriptWord } from '../queries/types.js';
import type { TranscriptTiming } from '../schema/enums.js';
import { describeTarget, toStorageError } from './errors.js';
import { openPostgres, pgSchemaState, type PgDb } from './open.js';
import type { OnSchemaNotice } from '../model/schema-notice.js';
import * as jobs from './jobs.js';
import * as reads from './meetings.js';
import * as proposals from './proposals.js';
import * as imports from './imports.js';
import { searchTranscripts, warmSearch } from './search.js';
import { bitmapDrift, forgetKeptViews, keepBitmaps, meetingTagBitsDrift } from './bitmaps.js';
import { meetingMissingAHandle, repairParticipantHandles } from './participant-handles.js';
import { loadMeetings } from './load.js';
import type { LoadOptions } from '../queries/export.js';
import { indexTranscript } from './transcripts.js';
import { one, rows, transaction, type Queryable } from './sql.js';
import { JobWaker } from './listen.js';

export interface PgStoreOptions {
  create: boolean;
  /** Connect on the first call (`syntheo mcp`: start-up stays cheap). A failed connect is not remembered. */
  lazy?: boolean;
  /** Told when the database's schema is upgraded, or when opening waits for another process's upgrade. */
  onSchema?: OnSchemaNotice;
  /** Keep the searches' connections and statistics ready ahead of use (warmSearch): a server answering questions. */
  warm?: boolean;
}

/**
 * The Store on a PostgreSQL database (src/db/store.ts): the same answers as the SQLite Store. Every
 * engine error is mapped here to a StorageError; a server that restarts is seen as a failed call
 * ("cannot be reached right now"), and the pool reconnects on the next one.
 */
export async function openPostgresStore(url: string, options: PgStoreOptions): Promise<Store> {
  let db: PgDb | undefined;
  let opening: Promise<PgDb> | undefined;
  const get = async (): Promise<PgDb> => {
    if (db) return db;
    opening ??= openPostgres(url, { create: options.create, warm: options.warm, ...(options.onSchema && { onSchema: options.onSchema }) }).finally(() => (opening = undefined));
    db = await opening;
    return db;
  };
  if (!options.lazy) await get();
  const run =
    <A extends unknown[], R>(fn: (pool: PgDb['pool'], ...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        const { pool } = await get();
        if (options.warm) warmSearch(pool);
        return await fn(pool, ...args);
      } catch (error) {
        throw toStorageError(url, error);
      }
    };

  // Each onQueued listener has its own LISTEN connection; close() ends those still open.
  const listeners = new Set<() => Promise<void>>();
  const onQueued = async (listener: () => void): Promise<() => Promise<void>> => {
    const waker = new JobWaker(url);
    const stop = new AbortController();
    // A first connection that fails is not fatal: the waker keeps reconnecting, and the worker polls meanwhile.
    await waker.start().catch(() => {});
    const listening = (async () => {
      while (!stop.signal.aborted) {
        if ((await waker.wait(60_000, stop.signal)) === 'notified' && !stop.signal.aborted) listener();
      }
    })();
    const unsubscribe = async (): Promise<void> => {
      if (!listeners.delete(unsubscribe)) return;
      stop.abort();
      await waker.close();
      await listening;
    };
    listeners.add(unsubscribe);
    return unsubscribe;
  };

  const transcripts: TranscriptStore = {
    page: run((pool, meetingId: string, page: Page, options?: { wordTimings: boolean }) => transcriptPage(pool, meetingId, page, options ?? { wordTimings: true })) as TranscriptStore['page'],
    allWords: run(async (pool, meetingId: string) => {
      const t = await one<{ id: string }>(pool, 'SELECT id FROM transcripts WHERE meeting_id = $1', [meetingId]);
      return t === undefined ? null : reads.allTranscriptWords(pool, t.id);
    }),
    wordCount: run(async (pool, meetingId: string) => (await one<{ n: number }>(pool, 'SELECT coalesce((SELECT word_count FROM transcripts WHERE meeting_id = $1), 0) AS n', [meetingId]))!.n),
  };

  return {
    engine: 'postgres',
    location: `postgresql://${describeTarget(url)}`,
    meetings: {
      list: run(reads.listMeetings),
      get: run(reads.getMeetingOrThrow),
      export: run(reads.exportMeetingOrThrow),
      title: run(async (pool, id: string) => (await one<{ title: string }>(pool, 'SELECT title FROM meetings WHERE id = $1', [id]))?.title ?? null),
      currentContent: run(async (pool, t: { kind: 'memo' | 'summary'; meetingId: string; targetId: string | null }) =>
        t.kind === 'memo'
          ? ((await one<{ note: string }>(pool, 'SELECT note FROM meetings WHERE id = $1', [t.meetingId]))?.note ?? null)
          : t.targetId === null
            ? null
            : ((await one<{ content: string }>(pool, 'SELECT content FROM summaries WHERE id = $1', [t.targetId]))?.content ?? null),
      ),
      counts: run(
        async (pool) =>
          (await one<{ meetings: number; folders: number; pending_proposals: number; active_imports: number }>(
            pool,
            `SELECT (SELECT count(*)::int FROM meetings) AS meetings, (SELECT count(*)::int FROM folders) AS folders,
                    (SELECT count(*)::int FROM proposals WHERE status = 'pending') AS pending_proposals,
                    (SELECT count(*)::int FROM recording_imports WHERE status NOT IN ('done', 'failed')
                       AND (lease_expires_at IS NULL OR lease_expires_at > syntheo_at(NULL, 0))) AS active_imports`,
          ))!,
      ),
    },
    folders: {
      list: run(reads.listFolders),
      get: run((pool, path: string) => reads.getFolderByPathOrThrow(pool, path)),
      existing: run(async (pool, paths: readonly string[]) => new Set((await rows<{ path: string }>(pool, 'SELECT path FROM folders WHERE path = ANY($1::text[])', [[...paths]])).map((r) => r.path))),
      ensure: run(reads.ensureFolderPath),
      paths: run(async (pool) => (await rows<{ path: string }>(pool, 'SELECT path FROM folders ORDER BY path COLLATE "C"')).map((r) => r.path)),
    },
    series: {
      get: run(reads.getSeriesRefOrThrow),
      history: run(reads.seriesHistoryOrThrow),
      meetings: run(reads.seriesMeetings),
    },
    transcripts,
    search: { transcripts: run(searchTranscripts) },
    proposals: {
      proposeSummaryEdit: run(proposals.proposeSummaryEdit),
      proposeMemoEdit: run(proposals.proposeMemoEdit),
      list: run(proposals.listProposals),
      get: run(proposals.getProposalOrThrow),
      decline: run(proposals.declineProposalOrThrow),
      apply: run(proposals.applyProposalOrThrow),
      seed: run(async (pool, p: { id: string; meetingId: string; kind: 'summary' | 'memo'; targetId: string | null; content: string; baseContent: string; proposedBy: string; createdAt: string }) => {
        await pool.query(
          `INSERT INTO proposals (id, meeting_id, kind, target_id, content, base_content, status, proposed_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8) ON CONFLICT (id) DO NOTHING`,
          [p.id, p.meetingId, p.kind, p.targetId, p.content, p.baseContent, p.proposedBy, p.createdAt],
        );
      }),
    },
    imports: {
      enqueue: run(imports.enqueueImport),
      get: run(reads.getImportOrThrow),
      forMeeting: run(reads.getImportForMeeting),
      list: run(imports.listImports),
      hasFile: run(
        async (pool, path: string, size: number, mtimeMs: number) =>
          (await one(pool, 'SELECT 1 FROM recording_imports WHERE file_path = $1 AND file_size = $2 AND file_mtime_ms = $3 LIMIT 1', [path, size, Math.trunc(mtimeMs)])) !== undefined,
      ),
      hasUnder: run(async (pool, dir: string) => {
        const prefix = dir.endsWith('/') ? dir : `${dir}/`;
        return (await one(pool, 'SELECT 1 FROM recording_imports WHERE left(file_path, $1) = $2 LIMIT 1', [prefix.length, prefix])) !== undefined;
      }),
      findByContent: run((pool, sha256: string, options?: { includeFailed?: boolean }) => imports.findImportByContent(pool, sha256, options)),
      statuses: run(
        async (pool, ids: readonly string[]) =>
          new Map((await rows<{ id: string; status: ProcessingStatus }>(
            pool,
            // As the job reads (toRecordingImport): held under an expired lease, it is failed.
            `SELECT id, CASE WHEN status IN ${ACTIVE_STATUSES_SQL} AND lease_expires_at <= syntheo_at(NULL, 0) THEN 'failed' ELSE status END AS status
               FROM recording_imports WHERE id = ANY($1::text[])`,
            [[...ids]],
          )).map((r) => [r.id, r.status])),
      ),
    },
    jobs: {
      hasQueued: run(jobs.hasQueuedJob),
      claimNext: run((pool, workerId: string, leaseMs: number) => jobs.claimNextJob(pool, workerId, leaseMs)),
      renewLease: run((pool, lease: JobLease) => jobs.renewLease(pool, lease)),
      recordAudioFacts: run(jobs.recordAudioFacts),
      storeFileTranscript: run(jobs.storeFileTranscript),
      appendWords: run(jobs.appendJobWords),
      startChunkProgress: run(jobs.startChunkProgress),
      finishTranscription: run(jobs.finishTranscription),
      complete: run(jobs.completeJob),
      fail: run((pool, lease: JobLease, error: string) => jobs.failJob(pool, lease, error)),
      interrupt: run((pool, lease: JobLease, stage: string, cause: ShutdownCause) => jobs.interruptJob(pool, lease, stage, cause)),
      sweepExpiredLeases: run((pool) => jobs.sweepExpiredLeases(pool)),
      recording: run(async (pool, jobId: string) =>
        (await one(pool, 'SELECT 1 FROM recording_chunks WHERE job_id = $1 AND seq = 0', [jobId])) === undefined ? null : imports.readRecording(pool, jobId),
      ),
      onQueued,
    },
    workers: {
      register: run((pool, registration: WorkerRegistration) => jobs.registerWorker(pool, registration)),
      heartbeat: run((pool, workerId: string) => jobs.heartbeatWorker(pool, workerId)),
      markStopped: run((pool, workerId: string) => jobs.markWorkerStopped(pool, workerId)),
      latest: run((pool) => jobs.latestWorker(pool)),
      isAlive: run(async (pool) => (await jobs.latestWorker(pool))?.alive ?? false),
    },
    settings: {
      read: run(async (pool) => Object.fromEntries((await rows<{ key: string; value: string }>(pool, 'SELECT key, value FROM settings ORDER BY key COLLATE "C"')).map((r) => [r.key, r.value]))),
      write: run(async (pool, key: string, value: string) => {
        await pool.query('INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at', [
          key,
          value,
          new Date().toISOString(),
        ]);
      }),
      delete: run(async (pool, key: string) => ((await pool.query('DELETE FROM settings WHERE key = $1', [key])).rowCount ?? 0) > 0),
    },
    admin: {
      schema: run(async (pool) => (await pgSchemaState(pool)) ?? { applied: 0, latestApplied: 0, known: 0, latestKnown: 'none' }),
      integrity: run(async (pool) => {
        // A table dropped or renamed by another program: named, as SQLite's check names it (the other queries would fail on it).
        const absent = await absentTables(pool);
        if (absent.length > 0) return { check: 'quick_check' as const, problems: [], missing: absent.map((t) => `table ${t}`), search: [], searchOnly: false };
        // PostgreSQL keeps its own indexes consistent; what can drift is derived data: transcripts without passages.
        const missing = await rows<{ id: string }>(
          pool,
          "SELECT t.id FROM transcripts t WHERE t.word_count > 0 AND NOT EXISTS (SELECT 1 FROM search_passages p WHERE p.ref_id = t.id AND p.kind = 'transcript') LIMIT 20",
        );
        const drift = await derivedDrift(pool);
        return { check: 'quick_check' as const, problems: [], missing: [], search: [...missing.map((t) => `search passages of transcript ${t.id}`), ...drift], searchOnly: true };
      }),
      repairSearch: run(async (pool, onProgress?: RepairProgress) => {
        const list = await rows<{ id: string; meeting_id: string }>(pool, 'SELECT id, meeting_id FROM transcripts ORDER BY id');
        onProgress?.('transcripts', 0, list.length);
        for (const [i, t] of list.entries()) {
          await transaction(pool, (c) => indexTranscript(c, t.id, t.meeting_id));
          onProgress?.('transcripts', i + 1, list.length);
        }
        // The filter tags (migration 0007) recomputed from the meetings, a thousand meetings a transaction; then the
        // title grams (migrations 0008-0009) likewise; then every tag's and gram's count recomputed from the rows.
        const ids = (await rows<{ id: string }>(pool, 'SELECT id FROM meetings ORDER BY id')).map((r) => r.id);
        // Both passes as one step, told by the share of their batches done (a meeting is done once its grams are).
        const batches = 2 * Math.ceil(ids.length / 1000);
        let done = 0;
        onProgress?.('meetings', 0, ids.length);
        for (const fn of ['syntheo_repair_filter_tags', 'syntheo_repair_meeting_grams']) {
          for (let i = 0; i < ids.length; i += 1000) {
            await pool.query(`SELECT ${fn}($1::text[])`, [ids.slice(i, i + 1000)]);
            onProgress?.('meetings', Math.round((++done / batches) * ids.length), ids.length);
          }
          await pool.query(`SELECT ${fn}(NULL)`);
        }
        const counts = [
          // The tags' bits (migration 0019) computed again from the repaired rows.
          'SELECT syntheo_repair_meeting_tag_bits()',
          // Every word's count (migration 0010) recomputed from the postings.
          'SELECT syntheo_repair_word_counts()',
          // The bitmaps (migration 0013) dropped: the worker's rounds build them again from the repaired rows.
          'SELECT syntheo_clear_search_bitmaps()',
        ];
        onProgress?.('counts', 0, counts.length + 1);
        for (const [i, sql] of counts.entries()) {
          await pool.query(sql);
          onProgress?.('counts', i + 1, counts.length + 1);
        }
        forgetKeptViews();
        // The names and e-mails (migration 0005): those nobody carries any more dropped, those missing added.
        await repairParticipantHandles(pool);
        onProgress?.('counts', counts.length + 1, counts.length + 1);
        const passages = (await one<{ n: number }>(pool, 'SELECT count(*)::int AS n FROM search_passages'))!.n;
        const meetings = (await one<{ n: number }>(pool, 'SELECT count(*)::int AS n FROM meetings'))!.n;
        const participants = (await one<{ n: number }>(pool, 'SELECT count(*)::int AS n FROM participants'))!.n;
        return { passages, meetings, participants, recreated: [] };
      }),
      load: run((pool, input: unknown, options?: LoadOptions) => loadMeetings(pool, input, options)),
      // The search bitmaps (migration 0013): a few short rounds a sweep, none waiting for a writer.
      maintain: run(async (pool) => ({ merged: [], frames: 0, truncated: false, bitmaps: await keepBitmaps(pool) })),
    },
    close: async () => {
      await Promise.allSettled([...listeners].map((unsubscribe) => unsubscribe()));
      const d = db ?? (opening ? await opening.catch(() => undefined) : undefined);
      db = undefined;
      await d?.close();
    },
  };
}

/** Meetings whose derived search rows `syntheo doctor` compares with their definition: the newest, a bounded sample. */
const DRIFT_SAMPLE = 500;

/**
 * Derived rows that differ from what defines them, for the newest DRIFT_SAMPLE meetings: their filter tags
 * (meeting_tags against the view meeting_tag_rows; search_tags their passages lack), their title grams (meeting_grams
 * against meeting_gram_rows; the words of their `gw` grams that title_words lacks, the pairs of their `gv` and `gp`
 * grams that title_pairs lacks), and search_postings their
 * passages' words lack (a trigger disabled, a row written by hand). Bounded: a whole comparison reads ~25M rows.
 * And the counts of every tag and gram (meeting_tag_counts) against the rows of meeting_tags and meeting_grams, and
 * of every word (search_word_counts and its deltas: search_word_totals) against search_postings; and the kept search
 * bitmaps of a sample of blocks. And a participant's name or e-mail missing from participant_handles (not bounded:
 * one read of the participants).
 */
async function derivedDrift(q: Queryable): Promise<string[]> {
  // The sample as an array parameter: as `IN (subquery)` it was not pushed into the view's branches (7 s, every meeting's tags computed).
  const ids = (await rows<{ id: string }>(q, `SELECT id FROM meetings ORDER BY started_at COLLATE "C" DESC, id COLLATE "C" DESC LIMIT ${DRIFT_SAMPLE}`)).map((r) => r.id);
  const r = await one<{ extra: number; missing: number; search: number; postings: number; grams_extra: number; grams_missing: number; words: number; pairs: number }>(
    q,
    `SELECT (SELECT count(DISTINCT g.tag) FROM meeting_grams g WHERE g.meeting_id = ANY($1::text[]) AND g.tag >= 'gw' AND g.tag < 'gx'
              AND NOT EXISTS (SELECT 1 FROM title_words w WHERE w.word = substr(g.tag, 3)))::int AS words,
            (SELECT count(DISTINCT g.tag) FROM meeting_grams g WHERE g.meeting_id = ANY($1::text[]) AND ((g.tag >= 'gp' AND g.tag < 'gq') OR (g.tag >= 'gv' AND g.tag < 'gw'))
              AND NOT EXISTS (SELECT 1 FROM title_pairs w WHERE w.tag = g.tag))::int AS pairs,
            (SELECT count(*) FROM (SELECT tag, started_at, meeting_id FROM meeting_grams WHERE meeting_id = ANY($1::text[])
                                   EXCEPT ALL SELECT tag, started_at, meeting_id FROM meeting_gram_rows WHERE meeting_id = ANY($1::text[])) x)::int AS grams_extra,
            (SELECT count(*) FROM (SELECT tag, started_at, meeting_id FROM meeting_gram_rows WHERE meeting_id = ANY($1::text[])
                                   EXCEPT ALL SELECT tag, started_at, meeting_id FROM meeting_grams WHERE meeting_id = ANY($1::text[])) x)::int AS grams_missing,
            (SELECT count(*) FROM (SELECT tag, started_at, meeting_id FROM meeting_tags WHERE meeting_id = ANY($1::text[])
                                   EXCEPT ALL SELECT tag, started_at, meeting_id FROM meeting_tag_rows WHERE meeting_id = ANY($1::text[])) x)::int AS extra,
            (SELECT count(*) FROM (SELECT tag, started_at, meeting_id FROM meeting_tag_rows WHERE meeting_id = ANY($1::text[])
                                   EXCEPT ALL SELECT tag, started_at, meeting_id FROM meeting_tags WHERE meeting_id = ANY($1::text[])) x)::int AS missing,
            (SELECT count(*) FROM meeting_tags t JOIN search_passages p ON p.meeting_id = t.meeting_id
              WHERE t.meeting_id = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM search_tags s WHERE s.tag = t.tag AND s.passage_id = p.id))::int AS search,
            (SELECT count(*) FROM search_passages p, unnest(p.words) u
              WHERE p.meeting_id = ANY($1::text[]) AND NOT EXISTS (SELECT 1 FROM search_postings s WHERE s.lexeme = u.lexeme COLLATE "C" AND s.passage_id = p.id))::int AS postings`,
    [ids],
  );
  const found: string[] = [];
  if (r!.extra + r!.missing > 0) found.push(`filter tags of the newest ${DRIFT_SAMPLE} meetings (meeting_tags): ${r!.extra} wrong, ${r!.missing} missing`);
  if (r!.grams_extra + r!.grams_missing > 0) found.push(`title grams of the newest ${DRIFT_SAMPLE} meetings (meeting_grams): ${r!.grams_extra} wrong, ${r!.grams_missing} missing`);
  if (r!.words > 0) found.push(`title words of the newest ${DRIFT_SAMPLE} meetings (title_words): ${r!.words} missing`);
  if (r!.pairs > 0) found.push(`pairs of title words of the newest ${DRIFT_SAMPLE} meetings (title_pairs): ${r!.pairs} missing`);
  if (r!.search > 0) found.push(`filter tags of their search passages (search_tags): ${r!.search} missing`);
  if (r!.postings > 0) found.push(`words of their search passages (search_postings): ${r!.postings} missing`);
  // Handles nobody carries (a renamed participant's old name) are not a finding: they find no meeting, every rename
  // leaves one, and the repair drops them.
  const unhandled = await meetingMissingAHandle(q);
  if (unhandled !== undefined) found.push(`names and e-mails of participants (participant_handles): at least one missing (the participant filter does not find meeting ${unhandled} by it)`);
  // Every tag's and gram's count (its deltas summed) against its rows: not bounded by the sample, since the newest
  // meetings' tags are nearly all the rows anyway (100k meetings: 4,065 tags, 8.3M of 8.9M rows, 0.8-1.3 s; all
  // 7,723 tags at once, grouped, 0.65-1.1 s).
  const tags = await countsDrift(q, 'tag', 'meeting_tag_counts', 'rows', 'SELECT tag, count(*) AS n FROM meeting_grams GROUP BY tag UNION ALL SELECT tag, count(*) FROM meeting_tags GROUP BY tag');
  if (tags) found.push(`counts of tags and title grams (meeting_tag_counts): ${tags.wrong} differ from their rows (${tags.examples})`);
  // Every word's count (its base rows and pending deltas, migration 0011) against its postings: not bounded either
  // (100k meetings: 13.4M postings of 3,598 words grouped, 1.0-1.2 s at load ~3).
  const words = await countsDrift(q, 'lexeme', 'search_word_totals', 'postings', 'SELECT lexeme, count(*) AS n FROM search_postings GROUP BY lexeme');
  if (words) found.push(`counts of search words (search_word_counts): ${words.wrong} differ from their postings (${words.examples})`);
  // The kept bitmaps (migration 0013) of a sample of built blocks, computed again.
  const bitmaps = await bitmapDrift(q);
  if (bitmaps)
    found.push(`search bitmaps (search_bitmaps, search_counts): ${bitmaps.wrong} of a sample of blocks differ from their postings and tags (${bitmaps.examples}; kind c: a word's counts, kind g: the participants' grams, kind p: the pairs of words side by side)`);
  // The tags' bits (migration 0019) of the newest meetings' block and a sample of others, computed again.
  const tagBits = await meetingTagBitsDrift(q);
  if (tagBits) found.push(`bits of the meetings' tags (meeting_tag_bits): ${tagBits.wrong} of a sample of blocks differ from their tags (${tagBits.examples})`);
  return found;
}

/**
 * A table of counted deltas (`key`, `n`), each key's sum against `held` (the key and its rows' count): how many keys
 * differ, and the first three as `key: counted, held unit`. Undefined when none does.
 */
async function countsDrift(q: Queryable, key: 'tag' | 'lexeme', counts: string, unit: string, held: string): Promise<{ wrong: number; examples: string } | undefined> {
  const wrong = await rows<{ key: string; counted: number; held: number; wrong: number }>(
    q,
    `SELECT key, counted, held, count(*) OVER ()::int AS wrong FROM (
       SELECT coalesce(c.${key}, r.${key}) AS key, coalesce(c.n, 0)::bigint AS counted, coalesce(r.n, 0)::bigint AS held
       FROM (SELECT ${key}, sum(n) AS n FROM ${counts} GROUP BY ${key}) c FULL JOIN (${held}) r ON r.${key} = c.${key}
       WHERE coalesce(c.n, 0) <> coalesce(r.n, 0)) x
     ORDER BY key COLLATE "C" LIMIT 3`,
  );
  if (wrong.length === 0) return undefined;
  return { wrong: wrong[0]!.wrong, examples: wrong.map((w) => `${w.key}: ${w.counted} counted, ${w.held} ${unit}`).join('; ') };
}

/** Tables of the Drizzle schema that the database lacks. The schema loads here, for `syntheo doctor` only. */
async function absentTables(q: Queryable): Promise<string[]> {
  const [{ is, Table, getTableName }, schema] = await Promise.all([import('drizzle-orm'), import('../schema-pg/index.js')]);
  const expected = Object.values(schema).flatMap((v) => (is(v, Table) ? [getTableName(v)] : []));
  const present = new Set((await rows<{ name: string }>(q, 'SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()')).map((r) => r.name));
  return expected.filter((name) => !present.has(name)).sort();
}

type WordRow = { idx: number; text: string; start_ms: number | null; end_ms: number | null; speaker: string | null };

/** A page of a transcript: a range on the primary key, O(limit) whatever the offset (as on SQLite); the transcript's facts and its words in one statement. */
async function transcriptPage(q: Queryable, meetingId: string, page: Page, options: { wordTimings: boolean }): Promise<TranscriptPage | TranscriptPage<TranscriptTurn>> {
  // A row per word (each carrying the transcript's columns), or one row without a word: none at this offset.
  const found = await rows<{ id: string; word_count: number; timing: TranscriptTiming } & { [K in keyof WordRow]: WordRow[K] | null }>(
    q,
    `SELECT t.id, t.word_count, t.timing, w.idx, w.text, w.start_ms, w.end_ms, w.speaker FROM transcripts t
     LEFT JOIN LATERAL (SELECT idx, text, start_ms, end_ms, speaker FROM transcript_words WHERE transcript_id = t.id AND idx >= $2 ORDER BY idx LIMIT $3) w ON true
     WHERE t.meeting_id = $1 ORDER BY w.idx`,
    [meetingId, page.offset, page.limit],
  );
  if (found.length === 0) {
    await reads.assertMeetingExists(q, meetingId);
    return { meeting_id: meetingId, text: '', words: [], pagination: pagination(page, 0, 0) };
  }
  const transcript = { id: found[0]!.id, word_count: found[0]!.word_count, timing: found[0]!.timing };
  const words: TranscriptWord[] = found.filter((w) => w.idx !== null).map((w) => ({ index: w.idx!, text: w.text!, start_ms: w.start_ms, end_ms: w.end_ms, speaker: w.speaker }));
  return transcriptPageOf(meetingId, words, page, transcript, options);
}
