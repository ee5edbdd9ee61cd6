import * as v from 'valibot';
import { ExportSchema, meetingIdParam } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/export.js'));

export const exportMeetingTool = defineTool({
  name: 'export_meeting',
  title: 'Export a meeting',
  description:
    'The full record, transcript included. Prefer get_meeting and get_meeting_transcript. ' +
    'Over 25,000 tokens, the transcript is cut and truncated says how to read the rest.',
  input: v.object({ meeting_id: meetingIdParam }),
  output: ExportSchema,
  annotations: READ_ONLY,
  handler: async (sqlite, a) => (await queries()).exportMeetingOrThrow(sqlite, a.meeting_id),
});
