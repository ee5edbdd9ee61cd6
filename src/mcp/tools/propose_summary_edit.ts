import * as v from 'valibot';
import { ProposalDetailSchema, meetingIdParam, optionalString, requiredString } from '../schema.js';
import { STAGES_CHANGE, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/proposals.js'));

export const proposeSummaryEditTool = defineTool({
  name: 'propose_summary_edit',
  title: 'Propose a summary edit',
  description:
    "Stages a full replacement of one of a meeting's summaries (or a new summary when the meeting has none) as a pending proposal. " +
    'Nothing changes until the user reviews and applies it in the app: tell them it awaits their review, never that the summary was updated. ' +
    'When the meeting has several summaries, pass target_id (summary IDs are in get_meeting). Returns the proposal with a unified diff.',
  input: v.object({
    meeting_id: meetingIdParam,
    content: requiredString('The full replacement summary, in Markdown (not a diff, not a fragment).'),
    target_id: optionalString('ID of the summary to replace (sum_..., from get_meeting). Required when the meeting has several summaries.'),
  }),
  output: ProposalDetailSchema,
  annotations: STAGES_CHANGE,
  handler: async (sqlite, a, ctx) => {
    const request = { meetingId: a.meeting_id, content: a.content, targetId: a.target_id, proposedBy: ctx.client };
    return (await queries()).proposeSummaryEdit(sqlite, request);
  },
});
