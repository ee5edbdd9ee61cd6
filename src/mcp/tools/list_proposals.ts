import * as v from 'valibot';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { PROPOSAL_STATUS_FILTERS, listProposals } from '../../db/queries/proposals.js';
import { PaginationSchema, ProposalItemSchema, limitParam, offsetParam, optionalString } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const listProposalsTool = defineTool({
  name: 'list_proposals',
  title: 'List proposals',
  description:
    'Lists proposed summary and note edits, newest first: pending ones by default, or applied, declined or all. ' +
    'stale is true when the target changed since the proposal was made. Read one (with its diff) with get_proposal.',
  input: v.object({
    meeting_id: optionalString('Restricts results to one meeting (mtg_...).'),
    status: v.optional(v.pipe(v.picklist(PROPOSAL_STATUS_FILTERS), v.description('pending, applied, declined or all.')), 'pending'),
    limit: limitParam(PAGE_RULES.proposals),
    offset: offsetParam(),
  }),
  output: v.object({ proposals: v.array(ProposalItemSchema), pagination: PaginationSchema }),
  annotations: READ_ONLY,
  handler: (sqlite, a) => listProposals(sqlite, { meetingId: a.meeting_id, status: a.status }, { limit: a.limit, offset: a.offset }),
});
