import * as v from 'valibot';
import { proposalText } from '../../render/answers.js';
import { fitProposal } from '../../render/fit.js';
import { ProposalDetailSchema, meetingIdParam, requiredString } from '../schema.js';
import { STAGES_CHANGE, defineTool } from '../tool.js';

export const proposeMemoEditTool = defineTool({
  name: 'propose_memo_edit',
  title: 'Propose a note edit',
  description: "Stages a replacement of the meeting's note as a pending proposal: nothing changes until the user applies it in the app: say it awaits their review.",
  input: v.object({
    meeting_id: meetingIdParam,
    content: requiredString('Full replacement note, Markdown.'),
  }),
  output: ProposalDetailSchema,
  annotations: STAGES_CHANGE,
  text: proposalText,
  handler: async (store, a, ctx) => fitProposal(await store.proposals.proposeMemoEdit({ meetingId: a.meeting_id, content: a.content, proposedBy: ctx.client })),
});
