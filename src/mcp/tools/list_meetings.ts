import * as v from 'valibot';
import { meetingsText } from '../../render/answers.js';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { fitList } from '../../render/budget.js';
import { MeetingRowSchema, PaginationSchema, limitParam, meetingRow, offsetParam, optionalString } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const listMeetingsTool = defineTool({
  name: 'list_meetings',
  title: 'List meetings',
  description:
    "The user's meetings, newest first: IDs (mtg_...) for the other tools, folder_path (null outside any folder). " +
    "Filters combine. An empty list means no meeting matches: don't invent one.",
  input: v.object({
    query: optionalString('Title or ID fragment.'),
    series_id: optionalString('ser_... ID.'),
    folder_path: optionalString('Path from list_folders; subfolders included.'),
    from: optionalString('Started on or after (ISO date).'),
    to: optionalString('Started on or before (ISO date).'),
    participant: optionalString('Name or e-mail fragment.'),
    limit: limitParam(PAGE_RULES.meetings),
    offset: offsetParam(),
  }),
  output: v.object({ meetings: v.array(MeetingRowSchema), pagination: PaginationSchema }),
  annotations: READ_ONLY,
  text: meetingsText,
  handler: async (store, a) => {
    const filter = { query: a.query, seriesId: a.series_id, folderPath: a.folder_path, from: a.from, to: a.to, participant: a.participant };
    const { meetings, pagination } = await store.meetings.list(filter, { limit: a.limit, offset: a.offset });
    const fitted = fitList(meetings.map(meetingRow), pagination);
    return { meetings: fitted.items, pagination: fitted.pagination };
  },
});
