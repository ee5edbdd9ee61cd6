import * as v from 'valibot';
import { exportText } from '../../render/answers.js';
import type { MeetingExport } from '../../db/queries/types.js';
import { ANSWER_BYTE_BUDGET, jsonBytes } from '../../render/budget.js';
import { fitExportRecord } from '../../render/fit.js';
import { ExportSchema, meetingIdParam } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

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
  handler: async (store, a) => fitExport(await store.meetings.export(a.meeting_id)),
});

/** The record, `truncated` (with the fields cut, if any) when it was cut: what ExportSchema admits. */
type FittedExport = MeetingExport;

/**
 * The whole record when it fits one answer; else the note, summaries and lists cut to leave the
 * transcript half of it at least (fitExportRecord), then the first transcript segments that fit, and
 * `truncated` saying where the rest starts. (`syntheo meetings export` writes a file: always whole.)
 */
export function fitExport(whole: MeetingExport, budget = ANSWER_BYTE_BUDGET): FittedExport {
  // The transcript's JSON up to half the budget (no more work than that): what the record leaves it at least.
  let transcriptBytes = 0;
  for (const segment of whole.transcripts[0]?.segments ?? []) {
    transcriptBytes += jsonBytes(segment) + 1;
    if (transcriptBytes >= budget / 2) break;
  }
  const bare = { ...whole, transcripts: whole.transcripts.map((t) => ({ ...t, segments: [] })) };
  const { record, cuts, read_rest: readRecord } = fitExportRecord(bare, budget - Math.min(transcriptBytes, budget / 2));
  const full: MeetingExport = cuts.length ? { ...record, transcripts: whole.transcripts } : whole;
  const [transcript] = full.transcripts;
  const fields = cuts.length ? { fields: cuts } : {};
  const recordOnly = (): FittedExport => {
    if (!cuts.length) return full; // several transcripts: not cut (see the report of this change)
    const words = full.transcripts[0]?.word_count ?? 0;
    return {
      ...full,
      truncated: { reason: 'The whole record is more than one answer may hold: the fields listed are shown in part; the transcript is whole.', transcript_words_included: words, next_offset: words, read_rest: readRecord, ...fields },
    };
  };
  if (!transcript || full.transcripts.length > 1) return recordOnly();
  const rest = `syntheo://meetings/${encodeURIComponent(full.id)}/transcript?offset=`;
  const truncated = (included: number): NonNullable<FittedExport['truncated']> => ({
    reason: `The whole record is more than one answer may hold: the transcript stops after ${included} of its ${transcript.word_count} words.${cuts.length ? ' The fields listed are shown in part.' : ''}`,
    transcript_words_included: included,
    next_offset: included,
    read_rest: `get_meeting_transcript with meeting_id "${full.id}", offset ${included} and limit 500, then each pagination.next_offset; or the resource ${rest}${included}&limit=500${cuts.length ? `. ${readRecord}` : ''}`,
    ...fields,
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
  if (fit(jsonBytes(cuts.length ? { ...empty, truncated: recordOnly().truncated } : empty)).kept === transcript.segments.length) return recordOnly();
  const { kept, words } = fit(jsonBytes({ ...empty, truncated: truncated(transcript.word_count) }));
  return { ...full, transcripts: [{ ...transcript, segments: transcript.segments.slice(0, kept) }], truncated: truncated(words) };
}
