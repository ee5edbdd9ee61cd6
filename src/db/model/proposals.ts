// Proposal vocabularies and limits: pure, shared by the Store, the CLI and the MCP tools.
import { PROPOSAL_STATUSES } from '../schema/enums.js';

/** 1 MiB of Markdown: far beyond any real summary or note, small enough to keep the database sane. */
export const MAX_PROPOSAL_BYTES = 1024 * 1024;

export const PROPOSAL_STATUS_FILTERS = [...PROPOSAL_STATUSES, 'all'] as const;
export type ProposalStatusFilter = (typeof PROPOSAL_STATUS_FILTERS)[number];
