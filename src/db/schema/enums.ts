// Status vocabularies: one array each, shared by the Drizzle columns, the Valibot picklists and the types.

export const PROCESSING_STATUSES = ['queued', 'importing', 'transcribing', 'summarizing', 'done', 'failed'] as const;
export type ProcessingStatus = (typeof PROCESSING_STATUSES)[number];
/** A worker holds the job (under a lease) in these states. */
export const ACTIVE_PROCESSING_STATUSES = ['importing', 'transcribing', 'summarizing'] as const satisfies readonly ProcessingStatus[];
export type ActiveStatus = (typeof ACTIVE_PROCESSING_STATUSES)[number];

export function isActiveStatus(status: string): status is ActiveStatus {
  return (ACTIVE_PROCESSING_STATUSES as readonly string[]).includes(status);
}

/** `('importing', 'transcribing', 'summarizing')`, for SQL. */
export const ACTIVE_STATUSES_SQL = `(${ACTIVE_PROCESSING_STATUSES.map((s) => `'${s}'`).join(', ')})`;

export const SUMMARY_STATUSES = ['pending', 'done', 'skipped_no_model', 'skipped_too_short', 'failed'] as const;
export type SummaryStatus = (typeof SUMMARY_STATUSES)[number];

export const PROPOSAL_KINDS = ['summary', 'memo'] as const;
export type ProposalKind = (typeof PROPOSAL_KINDS)[number];

export const PROPOSAL_STATUSES = ['pending', 'applied', 'declined'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** Where a piece of content came from: shown to people, useful when debugging imports. */
export const CONTENT_SOURCES = ['user', 'import', 'llm', 'proposal', 'demo', 'load'] as const;
export type ContentSource = (typeof CONTENT_SOURCES)[number];

/** Where a search passage comes from. */
export const SEARCH_KINDS = ['transcript', 'summary', 'note'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** How a transcript's word times were obtained: measured (server or file), estimated (spread over a cue or the duration), or mixed. */
export const TRANSCRIPT_TIMINGS = ['measured', 'estimated', 'mixed'] as const;
export type TranscriptTiming = (typeof TRANSCRIPT_TIMINGS)[number];

/** The `format` of an exported meeting record (syntheo meetings export, export_meeting, load). */
export const EXPORT_FORMAT = 'syntheo.meeting/v1' as const;
