// Import-list vocabularies and paging (`syntheo imports list`): pure, shared by the Store and the CLI.
import { PROCESSING_STATUSES } from '../schema/enums.js';

export const IMPORT_PAGE_RULE = { defaultLimit: 20, maxLimit: 200 } as const;

export const IMPORT_STATUS_FILTERS = [...PROCESSING_STATUSES, 'active', 'all'] as const;
export type ImportStatusFilter = (typeof IMPORT_STATUS_FILTERS)[number];
