import * as v from 'valibot';
import { proposalsText } from '../../render/answers.js';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { fitList } from '../../render/budget.js';
import { PROPOSAL_STATUS_FILTERS, PaginationSchema, ProposalRowSchema, limitParam, offsetParam, optionalString, proposalRow } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const listProposalsTool = defineTool({
  name: 'list_proposals',
  title: 'List proposals',
  description: 'Proposed summary and note edits, newest first. stale: the target changed since.',
  input: v.object({
    meeting_id: optionalString('mtg_... ID.'),
    status: v.optional(v.pipe(v.picklist(PROPOSAL_STATUS_FILTERS), v.description('Default pending.')), 'pending'),
    limit: limitParam(PAGE_RULES.proposals),
    offset: offsetParam(),
  }),
  output: v.object({ proposals: v.array(ProposalRowSchema), pagination: PaginationSchema }),
  annotations: READ_ONLY,
  text: proposalsText,
  handler: async (store, a) => {
    const { proposals, pagination } = await store.proposals.list({ meetingId: a.meeting_id, status: a.status }, { limit: a.limit, offset: a.offset });
    const fitted = fitList(proposals.map(proposalRow), pagination);
    return { proposals: fitted.items, pagination: fitted.pagination };
  },
});
