import * as v from 'valibot';
import { proposalText } from '../../render/answers.js';
import { fitProposal } from '../../render/fit.js';
import { ProposalDetailSchema, meetingIdParam, optionalString, requiredString } from '../schema.js';
import { STAGES_CHANGE, defineTool } from '../tool.js';

export const proposeSummaryEditTool = defineTool({
  name: 'propose_summary_edit',
  title: 'Propose a summary edit',
  description:
    'Stages a replacement of a summary (a new one if there is none) as a pending proposal: nothing changes until the user applies it in the app: say it awaits their review.',
  input: v.object({
    meeting_id: meetingIdParam,
    content: requiredString('Full replacement summary, Markdown.'),
    target_id: optionalString('sum_... from get_meeting; required when there are several.'),
  }),
  output: ProposalDetailSchema,
  annotations: STAGES_CHANGE,
  text: proposalText,
  handler: async (store, a, ctx) => {
    const request = { meetingId: a.meeting_id, content: a.content, targetId: a.target_id, proposedBy: ctx.client };
    return fitProposal(await store.proposals.proposeSummaryEdit(request));
  },
});
