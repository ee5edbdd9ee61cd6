import type { Sqlite } from '../open.js';
import { stmt } from '../statements.js';
import { IMPORT_COLUMNS, toRecordingImport, type ImportRow } from './imports.js';
import { pagination } from './pagination.js';
import { PROCESSING_STATUSES, type ProcessingStatus } from '../schema/enums.js';
import type { Page, Pagination, RecordingImport } from './types.js';

export const IMPORT_PAGE_RULE = { defaultLimit: 20, maxLimit: 200 } as const;

export const IMPORT_STATUS_FILTERS = [...PROCESSING_STATUSES, 'active', 'all'] as const;
export type ImportStatusFilter = (typeof IMPORT_STATUS_FILTERS)[number];

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
  // Not `rows.map(toRecordingImport)`: map would pass each row's index as `now`, and an expired lease would read as active.
  return { imports: rows.map((r) => toRecordingImport(r)), pagination: pagination(page, rows.length, total) };
}
