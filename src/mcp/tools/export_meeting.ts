import * as v from 'valibot';
import { exportText } from '../../render/answers.js';
import type { MeetingExport } from '../../db/queries/types.js';
import { ANSWER_BYTE_BUDGET, jsonBytes } from '../../render/budget.js';
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
  text: exportText,
  handler: async (sqlite, a) => fitExport((await queries()).exportMeetingOrThrow(sqlite, a.meeting_id)),
});

/**
 * The whole record when it fits one answer; else the first transcript segments that fit, and
 * `truncated` saying where the rest starts. (`syntheo meetings export` writes a file: always whole.)
 */
export function fitExport(full: MeetingExport, budget = ANSWER_BYTE_BUDGET): MeetingExport {
  const [transcript] = full.transcripts;
  if (!transcript || full.transcripts.length > 1) return full; // nothing to cut but the note and summaries, which get_meeting returns whole as well
  const rest = `syntheo://meetings/${encodeURIComponent(full.id)}/transcript?offset=`;
  const truncated = (included: number): NonNullable<MeetingExport['truncated']> => ({
    reason: `The whole record is more than one answer may hold: the transcript stops after ${included} of its ${transcript.word_count} words.`,
    transcript_words_included: included,
    next_offset: included,
    read_rest: `get_meeting_transcript with meeting_id "${full.id}", offset ${included} and limit 500, then each pagination.next_offset; or the resource ${rest}${included}&limit=500`,
  });
  // Segments in order while they fit, after what stays whatever the cut; never more JSON work than the budget.
  const fit = (base: number): { kept: number; words: number } => {
    let used = base;
    let words = 0;
    for (const [kept, segment] of transcript.segments.entries()) {
      used += jsonBytes(segment) + 1;
      if (used > budget) return { kept, words };
      words += segment.times.length;
    }
    return { kept: transcript.segments.length, words };
  };
  const empty = { ...full, transcripts: [{ ...transcript, segments: [] }] };
  if (fit(jsonBytes(empty)).kept === transcript.segments.length) return full;
  const { kept, words } = fit(jsonBytes({ ...empty, truncated: truncated(transcript.word_count) }));
  return { ...full, transcripts: [{ ...transcript, segments: transcript.segments.slice(0, kept) }], truncated: truncated(words) };
}
