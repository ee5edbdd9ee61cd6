import * as v from 'valibot';
import { MeetingDetailSchema, meetingIdParam } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/meetings.js'));

export const getMeetingTool = defineTool({
  name: 'get_meeting',
  title: 'Get a meeting',
  description:
    "A meeting's details: title, dates, folder_path, series, the canonical note (Markdown), the summaries (with their IDs), " +
    'participants and action items, plus the transcript size. The transcript text itself is read with get_meeting_transcript. ' +
    'For an imported meeting, processing_status and recording_import tell where the import stands (otherwise null).',
  input: v.object({ meeting_id: meetingIdParam }),
  output: MeetingDetailSchema,
  annotations: READ_ONLY,
  handler: async (sqlite, a) => (await queries()).getMeetingOrThrow(sqlite, a.meeting_id),
});
