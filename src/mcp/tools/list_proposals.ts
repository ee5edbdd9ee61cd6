import * as v from 'valibot';
import { proposalsText } from '../../render/answers.js';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { fitList } from '../../render/budget.js';
import { PROPOSAL_STATUS_FILTERS, PaginationSchema, ProposalRowSchema, limitParam, offsetParam, optionalString, proposalRow } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/proposals.js'));

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
  handler: async (sqlite, a) => {
    const { proposals, pagination } = (await queries()).listProposals(sqlite, { meetingId: a.meeting_id, status: a.status }, { limit: a.limit, offset: a.offset });
    const fitted = fitList(proposals.map(proposalRow), pagination);
    return { proposals: fitted.items, pagination: fitted.pagination };
  },
});
