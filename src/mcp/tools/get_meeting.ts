import * as v from 'valibot';
import { meetingText } from '../../render/answers.js';
import { fitMeeting } from '../../render/fit.js';
import { MeetingDetailSchema, meetingIdParam } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const getMeetingTool = defineTool({
  name: 'get_meeting',
  title: 'Get a meeting',
  description:
    'A meeting: note, summaries (sum_... IDs), participants, action items, import state; not the transcript (get_meeting_transcript).',
  input: v.object({ meeting_id: meetingIdParam }),
  output: MeetingDetailSchema,
  annotations: READ_ONLY,
  text: meetingText,
  handler: async (store, a) => fitMeeting(await store.meetings.get(a.meeting_id)),
});
