import * as v from 'valibot';
import { getProposalOrThrow } from '../../db/queries/proposals.js';
import { ProposalDetailSchema, proposalIdParam } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const getProposalTool = defineTool({
  name: 'get_proposal',
  title: 'Get a proposal',
  description:
    'A proposal: its status, target, proposed content, the content it was made against and a unified diff (current -> proposed). ' +
    'Reading it does not apply it; only the user applies proposals, in the app.',
  input: v.object({ proposal_id: proposalIdParam }),
  output: ProposalDetailSchema,
  annotations: READ_ONLY,
  handler: (sqlite, a) => getProposalOrThrow(sqlite, a.proposal_id),
});
