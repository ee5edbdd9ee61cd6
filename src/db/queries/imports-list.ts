import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { IMPORT_COLUMNS, toRecordingImport, type ImportRow } from './imports.js';
import { pagination } from './pagination.js';
import type { ProcessingStatus } from '../schema/enums.js';
import type { Page, Pagination, RecordingImport } from './types.js';
import type { ImportStatusFilter } from '../model/imports-list.js';

// Pure constants live in src/db/model/imports.ts; re-exported for the callers that import them from here.
export { IMPORT_PAGE_RULE, IMPORT_STATUS_FILTERS, type ImportStatusFilter } from '../model/imports-list.js';

const ACTIVE: readonly ProcessingStatus[] = ['queued', 'importing', 'transcribing', 'summarizing'];

/** `syntheo imports list`: newest first; `active` = not yet done or failed. */
export function listImports(sqlite: Sqlite, filter: { status: ImportStatusFilter }, page: Page): { imports: RecordingImport[]; pagination: Pagination } {
  const statuses = filter.status === 'all' ? null : filter.status === 'active' ? ACTIVE : [filter.status];
  const where = statuses === null ? '' : `WHERE j.status IN (${statuses.map(() => '?').join(', ')})`;
  const params = statuses ?? [];
  const rows = stmt<ImportRow>(
    sqlite,
    `SELECT ${IMPORT_COLUMNS} FROM recording_imports j CROSS JOIN meetings m ON m.id = j.meeting_id ${where} ORDER BY j.created_at DESC, j.id DESC LIMIT ? OFFSET ?`,
  ).all(...params, page.limit, page.offset);
  const total = stmt<{ n: number }>(sqlite, `SELECT count(*) AS n FROM recording_imports j ${where}`).get(...params)!.n;
  return { imports: rows.map(toRecordingImport), pagination: pagination(page, rows.length, total) };
}
