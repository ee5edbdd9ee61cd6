import * as v from 'valibot';
import { proposalText } from '../../render/answers.js';
import { fitProposal } from '../../render/fit.js';
import { ProposalDetailSchema, proposalIdParam } from '../schema.js';
import { STAGES_CHANGE, defineTool } from '../tool.js';

export const declineProposalTool = defineTool({
  name: 'decline_proposal',
  title: 'Decline a proposal',
  description: 'Declines a pending proposal; the meeting does not change. An applied or declined one cannot be.',
  input: v.object({ proposal_id: proposalIdParam }),
  output: ProposalDetailSchema,
  annotations: STAGES_CHANGE,
  text: proposalText,
  handler: async (store, a) => fitProposal(await store.proposals.decline(a.proposal_id)),
});
