import * as v from 'valibot';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { MeetingListItemSchema, PaginationSchema, limitParam, offsetParam, optionalString } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/meetings.js'));

export const listMeetingsTool = defineTool({
  name: 'list_meetings',
  title: 'List meetings',
  description:
    "Lists the user's meetings, newest first, with their IDs (mtg_...), titles, dates and folder_path (null when outside any folder). " +
    'Filters combine: query (a fragment of the title or ID), series_id, folder_path (from list_folders; subfolders included), from/to dates, participant. ' +
    'Use the returned IDs with get_meeting, get_meeting_transcript and the other tools. ' +
    "An empty list means no meeting matches: say so, and don't invent one. Follow pagination.next_offset for more results; it is absent on the last page.",
  input: v.object({
    query: optionalString('Fragment of the title or the ID, case-insensitive; % and _ are ordinary characters. An empty list means no meeting matches: don\'t invent one.'),
    series_id: optionalString('Exact ID of a recurring series (ser_...), as found in a meeting\'s series_id.'),
    folder_path: optionalString('Path returned by list_folders, for example Projets/Lancement. Includes subfolders.'),
    from: optionalString('Only meetings that started at or after this ISO 8601 date or date-time, e.g. 2026-11-01.'),
    to: optionalString('Only meetings that started at or before this ISO 8601 date (the whole day) or date-time.'),
    participant: optionalString("Fragment of a participant's name or e-mail, case-insensitive."),
    limit: limitParam(PAGE_RULES.meetings),
    offset: offsetParam(),
  }),
  output: v.object({ meetings: v.array(MeetingListItemSchema), pagination: PaginationSchema }),
  annotations: READ_ONLY,
  handler: async (sqlite, a) => {
    const filter = { query: a.query, seriesId: a.series_id, folderPath: a.folder_path, from: a.from, to: a.to, participant: a.participant };
    return (await queries()).listMeetings(sqlite, filter, { limit: a.limit, offset: a.offset });
  },
});
