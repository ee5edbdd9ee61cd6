import * as v from 'valibot';
import { ProposalDetailSchema, meetingIdParam, requiredString } from '../schema.js';
import { STAGES_CHANGE, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/proposals.js'));

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
  handler: async (sqlite, a, ctx) => (await queries()).proposeMemoEdit(sqlite, { meetingId: a.meeting_id, content: a.content, proposedBy: ctx.client }),
});
