import * as v from 'valibot';
import { proposalText } from '../../render/answers.js';
import { fitProposal } from '../../render/fit.js';
import { ProposalDetailSchema, proposalIdParam } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/proposals.js'));

export const getProposalTool = defineTool({
  name: 'get_proposal',
  title: 'Get a proposal',
  description: 'A proposal and its unified diff. Reading it does not apply it.',
  input: v.object({ proposal_id: proposalIdParam }),
  output: ProposalDetailSchema,
  annotations: READ_ONLY,
  text: proposalText,
  handler: async (sqlite, a) => fitProposal((await queries()).getProposalOrThrow(sqlite, a.proposal_id)),
});
