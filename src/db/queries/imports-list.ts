import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { IMPORT_COLUMNS, toRecordingImport, type ImportRow } from './imports.js';
import { pagination } from './pagination.js';
import { ACTIVE_STATUSES_SQL, type ProcessingStatus } from '../schema/enums.js';
import type { Page, Pagination, RecordingImport } from './types.js';
import type { ImportStatusFilter } from '../model/imports-list.js';

// Pure constants live in src/db/model/imports.ts; re-exported for the callers that import them from here.
export { IMPORT_PAGE_RULE, IMPORT_STATUS_FILTERS, type ImportStatusFilter } from '../model/imports-list.js';

const ACTIVE: readonly ProcessingStatus[] = ['queued', 'importing', 'transcribing', 'summarizing'];

// A job is filtered by the status it reads as (toRecordingImport): held under a lease that has run
// out, it is failed (interrupted), not in its stage, before any sweep writes that down.
const NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";
const LIVE = `(j.lease_expires_at IS NULL OR j.lease_expires_at > ${NOW})`;
const EXPIRED = `(j.status IN ${ACTIVE_STATUSES_SQL} AND j.lease_expires_at <= ${NOW})`;

function statusCondition(statuses: readonly ProcessingStatus[]): string {
  const others = statuses.filter((s) => s !== 'failed');
  const parts = others.length ? [`(j.status IN (${others.map(() => '?').join(', ')}) AND ${LIVE})`] : [];
  if (statuses.includes('failed')) parts.push("j.status = 'failed'", EXPIRED);
  return `WHERE (${parts.join(' OR ')})`;
}

/** `syntheo imports list`: newest first; `active` = not yet done or failed. */
export function listImports(sqlite: Sqlite, filter: { status: ImportStatusFilter }, page: Page): { imports: RecordingImport[]; pagination: Pagination } {
  const statuses = filter.status === 'all' ? null : filter.status === 'active' ? ACTIVE : [filter.status];
  const where = statuses === null ? '' : statusCondition(statuses);
  const params = (statuses ?? []).filter((s) => s !== 'failed');
  const rows = stmt<ImportRow>(
    sqlite,
    `SELECT ${IMPORT_COLUMNS} FROM recording_imports j CROSS JOIN meetings m ON m.id = j.meeting_id ${where} ORDER BY j.created_at DESC, j.id DESC LIMIT ? OFFSET ?`,
  ).all(...params, page.limit, page.offset);
  const total = stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM recording_imports j ${where}`).get(...params)!.n;
  // Not `rows.map(toRecordingImport)`: map would pass each row's index as `now`, and an expired lease would read as active.
  return { imports: rows.map((r) => toRecordingImport(r)), pagination: pagination(page, rows.length, total) };
}
