import * as v from 'valibot';
import { meetingText } from '../../render/answers.js';
import { fitMeeting } from '../../render/fit.js';
import { MeetingDetailSchema, meetingIdParam } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/meetings.js'));

export const getMeetingTool = defineTool({
  name: 'get_meeting',
  title: 'Get a meeting',
  description:
    'A meeting: note, summaries (sum_... IDs), participants, action items, import state; not the transcript (get_meeting_transcript).',
  input: v.object({ meeting_id: meetingIdParam }),
  output: MeetingDetailSchema,
  annotations: READ_ONLY,
  text: meetingText,
  handler: async (sqlite, a) => fitMeeting((await queries()).getMeetingOrThrow(sqlite, a.meeting_id)),
});
