import * as v from 'valibot';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { TranscriptPageSchema, limitParam, meetingIdParam, offsetParam } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/transcripts.js'));

export const getMeetingTranscriptTool = defineTool({
  name: 'get_meeting_transcript',
  title: 'Read a transcript page',
  description:
    "A bounded page of a meeting's transcript, counted in words: text (words joined by spaces, a new line \"Speaker: \" where the speaker changes) " +
    'and words (index, text, start_ms, end_ms, speaker). To read further, call again with offset = pagination.next_offset; ' +
    'a missing next_offset means the page reaches the end. A meeting without a transcript gives an empty page.',
  input: v.object({
    meeting_id: meetingIdParam,
    offset: offsetParam('Offset, in words (pagination.next_offset of the previous page).'),
    limit: limitParam(PAGE_RULES.transcript, `Words per page, clamped between 1 and ${PAGE_RULES.transcript.maxLimit}.`),
    word_timings: v.optional(v.pipe(v.boolean(), v.description('true: words lists every word with start_ms, end_ms and speaker (about 12x the tokens).')), false),
  }),
  output: TranscriptPageSchema,
  annotations: READ_ONLY,
  handler: async (sqlite, a) => (await queries()).getTranscriptPageOrThrow(sqlite, a.meeting_id, { limit: a.limit, offset: a.offset }, { wordTimings: a.word_timings }),
});
