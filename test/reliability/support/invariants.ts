// What must hold in a Syntheo database whatever happened to the processes that wrote it.
import type { Sqlite } from '../../../src/db/open.js';

export interface Problems {
  problems: string[];
}

const rows = <T>(sqlite: Sqlite, sql: string): T[] => sqlite.prepare(sql).all() as T[];

/**
 * PRAGMA integrity_check from a fresh connection. SQLite 3.53's FTS5 check trusts the FTS structure a
 * connection cached at its last FTS query: once another process has written, a long-lived connection
 * reports "fts5: checksum mismatch" or "corruption found reading blob" for a sound file (a MATCH query
 * first, or any new connection, says ok).
 */
export function integrityCheck(sqlite: Sqlite): string[] {
  const Driver = sqlite.constructor as new (path: string, options: { readonly: boolean; fileMustExist: boolean }) => Sqlite;
  const fresh = new Driver(sqlite.name, { readonly: true, fileMustExist: true });
  try {
    return (fresh.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
  } finally {
    fresh.close();
  }
}

/** Everything wrong with the database, as readable lines; [] when it is sound. */
export function invariantProblems(sqlite: Sqlite, opts: { terminal?: boolean } = {}): string[] {
  const problems: string[] = [];
  const integrity = integrityCheck(sqlite);
  if (integrity.join() !== 'ok') problems.push(`integrity_check: ${integrity.slice(0, 5).join('; ')}`);
  const fk = rows<{ table: string; parent: string }>(sqlite, 'PRAGMA foreign_key_check');
  if (fk.length) problems.push(`foreign_key_check: ${fk.length} rows, e.g. ${JSON.stringify(fk[0])}`);
  // A job always has its meeting, and a meeting made by an import always has its job: one transaction.
  for (const r of rows<{ id: string }>(sqlite, 'SELECT j.id FROM recording_imports j LEFT JOIN meetings m ON m.id = j.meeting_id WHERE m.id IS NULL'))
    problems.push(`job ${r.id} has no meeting`);
  for (const r of rows<{ id: string }>(sqlite, "SELECT m.id FROM meetings m WHERE m.source = 'import' AND NOT EXISTS (SELECT 1 FROM recording_imports j WHERE j.meeting_id = m.id)"))
    problems.push(`meeting ${r.id} was made by an import but has no job`);
  // Proposals are whole: content, a known status, a decision time exactly when decided, a target when they replace one.
  for (const r of rows<{ id: string; why: string }>(
    sqlite,
    `SELECT id, CASE
        WHEN content IS NULL OR content = '' THEN 'no content'
        WHEN status NOT IN ('pending', 'applied', 'declined') THEN 'status ' || status
        WHEN (status = 'pending') != (decided_at IS NULL) THEN 'decided_at does not match the status'
        WHEN kind NOT IN ('memo', 'summary') THEN 'kind ' || kind
        WHEN kind = 'memo' AND base_content IS NULL THEN 'memo proposal without its base'
        WHEN kind = 'summary' AND target_id IS NOT NULL AND base_content IS NULL AND status = 'pending' THEN 'summary replacement without its base'
      END AS why FROM proposals`,
  ).filter((r) => r.why !== null))
    problems.push(`proposal ${r.id}: ${r.why}`);
  // A transcript's word count is its words; its words are numbered 0..n-1.
  for (const r of rows<{ id: string; word_count: number; n: number; max: number | null }>(
    sqlite,
    'SELECT t.id, t.word_count, count(w.idx) AS n, max(w.idx) AS max FROM transcripts t LEFT JOIN transcript_words w ON w.transcript_id = t.id GROUP BY t.id',
  ))
    if (r.word_count !== r.n || (r.n > 0 && r.max !== r.n - 1)) problems.push(`transcript ${r.id}: word_count ${r.word_count}, ${r.n} words, last index ${r.max}`);
  // Job states are consistent.
  for (const r of rows<{ id: string; why: string }>(
    sqlite,
    `SELECT id, CASE
        WHEN status IN ('done', 'failed') AND finished_at IS NULL THEN 'finished without finished_at'
        WHEN status IN ('done', 'failed') AND lease_expires_at IS NOT NULL THEN 'finished but still leased'
        WHEN status IN ('importing', 'transcribing', 'summarizing') AND (worker_id IS NULL OR lease_expires_at IS NULL) THEN 'active without a worker and lease'
        WHEN status = 'failed' AND (error IS NULL OR error = '') THEN 'failed without an error'
        WHEN status = 'done' AND summary_status = 'pending' THEN 'done with a pending summary'
      END AS why FROM recording_imports`,
  ).filter((r) => r.why !== null))
    problems.push(`job ${r.id}: ${r.why}`);
  if (opts.terminal)
    for (const r of rows<{ id: string; status: string }>(sqlite, "SELECT id, status FROM recording_imports WHERE status NOT IN ('done', 'failed')"))
      problems.push(`job ${r.id} is still ${r.status}`);
  return problems;
}
