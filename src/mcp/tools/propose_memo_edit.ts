import * as v from 'valibot';
import { proposeMemoEdit } from '../../db/queries/proposals.js';
import { ProposalDetailSchema, meetingIdParam, requiredString } from '../schema.js';
import { STAGES_CHANGE, defineTool } from '../tool.js';

export const proposeMemoEditTool = defineTool({
  name: 'propose_memo_edit',
  title: 'Propose a note edit',
  description:
    "Stages a full replacement of the meeting's canonical note as a pending proposal. " +
    'Nothing changes until the user reviews and applies it in the app: tell them it awaits their review. ' +
    'Read the current note with get_meeting first and keep what should stay. Returns the proposal with a unified diff.',
  input: v.object({
    meeting_id: meetingIdParam,
    content: requiredString('The full replacement note, in Markdown. It replaces the whole note once applied.'),
  }),
  output: ProposalDetailSchema,
  annotations: STAGES_CHANGE,
  handler: (sqlite, a, ctx) => proposeMemoEdit(sqlite, { meetingId: a.meeting_id, content: a.content, proposedBy: ctx.client }),
});
