// The text block of each tool answer: a compact, readable rendering of the same answer for the
// clients that give the model `content` (Claude Code and VS Code give it structuredContent). Not a
// second copy of the JSON: a client that forwards both pays little extra. Imports nothing heavy.
import type { Folder, MeetingDetail, MeetingExport, Pagination, ProposalDetail, ProposalItem, RecordingImport, SeriesRef, TranscriptTurn, TranscriptWord } from '../db/queries/types.js';
import { stamp } from '../text/clock.js';
import { exportMarkdown, meetingMarkdown } from './markdown.js';
import type { FieldCut, Truncation } from './fit.js';

interface Row {
  id: string;
  title: string;
  started_at: string;
  folder_path: string | null;
  words?: number;
  processing_status?: string;
}

/** `2026-03-11 09:00` from an ISO date-time (the JSON keeps the exact value). */
const minute = (iso: string): string => iso.slice(0, 16).replace('T', ' ');

/** `Items 1-20 of 221; next: offset 20.` — the paging a model must follow, in one line. */
export function pageLine(p: Pagination, noun: string): string {
  if (p.total === 0) return `No ${noun}.`;
  if (p.returned === 0) return `No ${noun} at offset ${p.offset} (total ${p.total}).`;
  const range = `${noun[0]!.toUpperCase()}${noun.slice(1)} ${p.offset + 1}-${p.offset + p.returned} of ${p.total}`;
  return p.next_offset === undefined ? `${range}; last page.` : `${range}; next: offset ${p.next_offset}.`;
}

function meetingLine(m: Row): string {
  let line = `${m.id} | ${minute(m.started_at)} | ${m.title}`;
  if (m.folder_path) line += ` | ${m.folder_path}`;
  if (m.words) line += ` | ${m.words} words`;
  if (m.processing_status) line += ` | import ${m.processing_status}`;
  return line;
}

export function meetingsText(out: { meetings: Row[]; pagination: Pagination }): string {
  if (out.pagination.total === 0) return "No meeting matches: don't invent one.";
  return [...out.meetings.map(meetingLine), pageLine(out.pagination, 'meetings')].join('\n');
}

export function historyText(out: { meeting_id: string; series: SeriesRef | null; meetings: Row[]; pagination: Pagination }): string {
  if (!out.series) return `Meeting ${out.meeting_id} belongs to no recurring series.`;
  const head = `Series ${out.series.id}: ${out.series.title}${out.series.cadence ? ` (${out.series.cadence})` : ''}`;
  return [head, ...out.meetings.map(meetingLine), pageLine(out.pagination, 'meetings')].join('\n');
}

export function foldersText(out: { folders: Folder[]; pagination: Pagination }): string {
  if (out.pagination.total === 0) return 'No folder matches.';
  return [...out.folders.map((f) => `${f.path} (${f.meeting_count} meetings)`), pageLine(out.pagination, 'folders')].join('\n');
}

/** `[Cut] <reason> note: 10913 of 1048576 characters shown; ... <read_rest>`: the notice of an answer cut to fit. */
export function cutNotice(t: { reason: string; fields?: FieldCut[]; read_rest: string }): string {
  const fields = (t.fields ?? []).map((f) => `${f.field}: ${f.shown} of ${f.total} ${f.unit} shown`).join('; ');
  return `[Cut] ${t.reason}${fields ? ` ${fields}.` : ''} ${t.read_rest}`;
}

export function meetingText(m: MeetingDetail & { truncated?: Truncation }): string {
  const md = meetingMarkdown(m).trimEnd();
  return m.truncated ? `${md}\n\n${cutNotice(m.truncated)}` : md;
}

/** Plain text still: one tab-separated line per word under a header, for readers that want the timings. */
export function wordTable(words: readonly TranscriptWord[]): string {
  const lines = ['index\tstart_ms\tend_ms\tspeaker\ttext'];
  for (const w of words) lines.push(`${w.index}\t${w.start_ms ?? ''}\t${w.end_ms ?? ''}\t${w.speaker ?? ''}\t${w.text}`);
  return lines.join('\n');
}

export function transcriptText(out: { meeting_id: string; text: string; words: TranscriptTurn[] | TranscriptWord[]; pagination: Pagination; timing?: string }): string {
  const p = out.pagination;
  if (p.total === 0) return `Meeting ${out.meeting_id} has no transcript (yet).`;
  const timed = out.words.length > 0 && !Array.isArray(out.words[0]);
  const note = out.timing === 'estimated' ? ' Times are estimated (spread over each cue).' : out.timing === 'mixed' ? ' Times are partly estimated.' : '';
  return [out.text, ...(timed ? [wordTable(out.words as TranscriptWord[])] : []), `${pageLine(p, 'words')}${note}`].filter((s) => s !== '').join('\n\n');
}

export function exportText(e: MeetingExport & { truncated?: { fields?: FieldCut[] } }): string {
  const md = exportMarkdown(e).trimEnd();
  return e.truncated ? `${md}\n\n${cutNotice({ ...e.truncated, read_rest: `Read the rest: ${e.truncated.read_rest.replace(/\.$/, '')}.` })}` : md;
}

type ProposalLike = Pick<ProposalItem, 'id' | 'meeting_id' | 'meeting_title' | 'kind' | 'status' | 'created_at'> & { target_id?: string | null; stale?: boolean; proposed_by?: string | null };

function proposalLine(p: ProposalLike): string {
  const what = p.kind === 'memo' ? 'note' : p.target_id ? `summary ${p.target_id}` : 'new summary';
  return `${p.id} | ${p.status}${p.stale ? ', stale' : ''} | ${what} of ${p.meeting_id} "${p.meeting_title}" | ${minute(p.created_at)}${p.proposed_by ? ` by ${p.proposed_by}` : ''}`;
}

export function proposalsText(out: { proposals: ProposalLike[]; pagination: Pagination }): string {
  if (out.pagination.total === 0) return 'No proposal matches.';
  return [...out.proposals.map(proposalLine), pageLine(out.pagination, 'proposals')].join('\n');
}

export function proposalText(p: ProposalDetail & { truncated?: Truncation }): string {
  const note = p.status === 'pending' ? 'Pending: the user reviews and applies it in the app.' : `${p.status[0]!.toUpperCase()}${p.status.slice(1)}${p.decided_at ? ` ${minute(p.decided_at)}` : ''}.`;
  const text = `${proposalLine(p)}\n${note}\n\n\`\`\`diff\n${p.diff.trimEnd()}\n\`\`\``;
  return p.truncated ? `${text}\n\n${cutNotice(p.truncated)}` : text;
}

export function importText(j: RecordingImport): string {
  const lines = [`${j.job_id}: meeting ${j.meeting_id} "${j.title}", processing ${j.processing_status}, summary ${j.summary_status}`];
  if (j.progress) lines.push(`Transcribed ${j.progress.chunks_done} of ${j.progress.chunks_total} chunks.`);
  if (j.error) lines.push(`Error: ${j.error}`);
  lines.push(`File: ${j.file_path} (${j.file_format})`);
  return lines.join('\n');
}

interface Hit {
  meeting_id: string;
  title: string;
  started_at: string;
  kind: string;
  summary_id: string | null;
  speaker: string | null;
  offset: number | null;
  start_ms?: number | null;
  snippet: string;
}

export function searchText(out: { hits: Hit[]; pagination: Pagination }): string {
  if (out.pagination.total === 0) return "Nothing matched: don't invent one.";
  const lines = out.hits.map((h) => {
    const where = h.kind === 'transcript' ? `transcript offset ${h.offset}${h.start_ms != null ? ` [${stamp(h.start_ms)}]` : ''}` : h.kind === 'summary' ? `summary ${h.summary_id}` : 'note';
    return `${h.meeting_id} | ${minute(h.started_at)} | ${h.title} | ${where}\n  ${h.speaker ? `${h.speaker}: ` : ''}${h.snippet}`;
  });
  return [...lines, pageLine(out.pagination, 'hits')].join('\n');
}
