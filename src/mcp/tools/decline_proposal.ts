import * as v from 'valibot';
import { declineProposalOrThrow } from '../../db/queries/proposals.js';
import { ProposalDetailSchema, proposalIdParam } from '../schema.js';
import { STAGES_CHANGE, defineTool } from '../tool.js';

export const declineProposalTool = defineTool({
  name: 'decline_proposal',
  title: 'Decline a proposal',
  description:
    'Declines a pending proposal, for example one you staged by mistake or that the user rejected; the meeting does not change. ' +
    'A proposal that was already applied or declined cannot be declined.',
  input: v.object({ proposal_id: proposalIdParam }),
  output: ProposalDetailSchema,
  annotations: STAGES_CHANGE,
  handler: (sqlite, a) => declineProposalOrThrow(sqlite, a.proposal_id),
});
