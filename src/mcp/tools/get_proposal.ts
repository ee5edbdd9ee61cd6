import * as v from 'valibot';
import { proposalText } from '../../render/answers.js';
import { fitProposal } from '../../render/fit.js';
import { ProposalDetailSchema, proposalIdParam } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const getProposalTool = defineTool({
  name: 'get_proposal',
  title: 'Get a proposal',
  description: 'A proposal and its unified diff. Reading it does not apply it.',
  input: v.object({ proposal_id: proposalIdParam }),
  output: ProposalDetailSchema,
  annotations: READ_ONLY,
  text: proposalText,
  handler: async (store, a) => fitProposal(await store.proposals.get(a.proposal_id)),
});
