import * as v from 'valibot';
import { historyText } from '../../render/answers.js';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { fitList } from '../../render/budget.js';
import { MeetingRowSchema, PaginationSchema, SeriesRefSchema, limitParam, meetingIdParam, meetingRow, offsetParam } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const getRecurringMeetingHistoryTool = defineTool({
  name: 'get_recurring_meeting_history',
  title: 'Recurring meeting history',
  description: "The meetings of this meeting's recurring series, newest first; empty when it has no series.",
  input: v.object({
    meeting_id: meetingIdParam,
    limit: limitParam(PAGE_RULES.history),
    offset: offsetParam(),
  }),
  output: v.object({ meeting_id: v.string(), series: v.nullable(SeriesRefSchema), meetings: v.array(MeetingRowSchema), pagination: PaginationSchema }),
  annotations: READ_ONLY,
  text: historyText,
  handler: async (store, a) => {
    const history = await store.series.history(a.meeting_id, { limit: a.limit, offset: a.offset });
    const fitted = fitList(history.meetings.map(meetingRow), history.pagination);
    return { ...history, meetings: fitted.items, pagination: fitted.pagination };
  },
});
