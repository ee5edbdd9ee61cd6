import * as v from 'valibot';
import { transcriptText } from '../../render/answers.js';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { TranscriptPageSchema, limitParam, meetingIdParam, offsetParam } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const getMeetingTranscriptTool = defineTool({
  name: 'get_meeting_transcript',
  title: 'Read a transcript page',
  description:
    'A page of the transcript, in words. text: one "[mm:ss] Speaker: words" line per turn; words: [offset, start_ms] per line. ' +
    'No pagination.next_offset: the page reaches the end.',
  input: v.object({
    meeting_id: meetingIdParam,
    offset: offsetParam('In words.'),
    limit: limitParam(PAGE_RULES.transcript),
    word_timings: v.optional(v.pipe(v.boolean(), v.description('words: {index, text, start_ms, end_ms, speaker} per word (12x the tokens).')), false),
  }),
  output: TranscriptPageSchema,
  annotations: READ_ONLY,
  text: transcriptText,
  handler: (store, a) => store.transcripts.page(a.meeting_id, { limit: a.limit, offset: a.offset }, { wordTimings: a.word_timings }),
});
