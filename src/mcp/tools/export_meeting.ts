import * as v from 'valibot';
import { ExportSchema, meetingIdParam } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/export.js'));

export const exportMeetingTool = defineTool({
  name: 'export_meeting',
  title: 'Export a meeting',
  description:
    "The meeting's full structured record: metadata, note, summaries, participants, action items and whole transcripts " +
    '(speaker segments, each word timed). It can be large: prefer get_meeting and get_meeting_transcript unless the task really needs everything. ' +
    'speakers and speaker_context appear when known.',
  input: v.object({ meeting_id: meetingIdParam }),
  output: ExportSchema,
  annotations: READ_ONLY,
  handler: async (sqlite, a) => (await queries()).exportMeetingOrThrow(sqlite, a.meeting_id),
});
