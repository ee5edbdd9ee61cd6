import { clock } from '../text/clock.js';
import type { MeetingDetail, MeetingExport, MeetingListItem, SeriesRef } from '../db/queries/types.js';

/** `1:02:03` or `2:03` from milliseconds; `--:--` when unknown. */
function clockOrDashes(ms: number | null): string {
  return ms === null ? '--:--' : clock(ms);
}

function when(started: string, ended: string | null): string {
  return ended ? `${started} → ${ended}` : started;
}

type MeetingLike = Pick<MeetingDetail, 'id' | 'title' | 'started_at' | 'ended_at' | 'folder_path' | 'series' | 'note' | 'summaries' | 'participants' | 'action_items'>;

function body(m: MeetingLike, extra: string[]): string[] {
  const lines = [`# ${m.title}`, '', `- ID: \`${m.id}\``, `- When: ${when(m.started_at, m.ended_at)}`];
  if (m.folder_path) lines.push(`- Folder: ${m.folder_path}`);
  if (m.series) lines.push(`- Series: ${m.series.title} (\`${m.series.id}\`${m.series.cadence ? `, ${m.series.cadence}` : ''})`);
  lines.push(...extra);
  if (m.participants.length) {
    lines.push('', '## Participants', '');
    for (const p of m.participants) lines.push(`- ${p.name}${p.email ? ` <${p.email}>` : ''}${p.role ? ` — ${p.role}` : ''}`);
  }
  for (const s of m.summaries) lines.push('', `## ${s.title} (\`${s.id}\`)`, '', s.content.trimEnd());
  if (m.action_items.length) {
    lines.push('', '## Action items', '');
    for (const a of m.action_items)
      lines.push(`- [${a.done ? 'x' : ' '}] ${a.text}${a.assignee ? ` — ${a.assignee}` : ''}${a.due_date ? ` (due ${a.due_date})` : ''}`);
  }
  lines.push('', '## Note', '', m.note.trim() === '' ? '_No note._' : m.note.trimEnd());
  return lines;
}

/** Said only when the times are not all measured: `, times estimated` / `, times partly estimated`. */
function timingNote(timing: string | undefined): string {
  return timing === 'estimated' ? ', times estimated' : timing === 'mixed' ? ', times partly estimated' : '';
}

/** syntheo://meetings/{id} and `syntheo meetings get`: the meeting without its transcript text. */
export function meetingMarkdown(m: MeetingDetail): string {
  const extra: string[] = [];
  extra.push(m.transcript ? `- Transcript: ${m.transcript.word_count} words${timingNote(m.transcript.timing)} (read it with get_meeting_transcript)` : '- Transcript: none');
  if (m.recording_import) extra.push(`- Import: ${m.recording_import.processing_status}, summary ${m.recording_import.summary_status}${m.recording_import.error ? ` — ${m.recording_import.error}` : ''}`);
  if (m.pending_proposal_count) extra.push(`- Pending proposals: ${m.pending_proposal_count}`);
  if (m.speakers?.length) extra.push(`- Speakers: ${m.speakers.join(', ')}`);
  if (m.speaker_context) extra.push(`- Speaker context: ${m.speaker_context}`);
  return `${body(m, extra).join('\n')}\n`;
}

/** `syntheo meetings export --format markdown`: the full record for people, transcript included. */
export function exportMarkdown(m: MeetingExport): string {
  const extra: string[] = [];
  if (m.speakers?.length) extra.push(`- Speakers: ${m.speakers.join(', ')}`);
  if (m.speaker_context) extra.push(`- Speaker context: ${m.speaker_context}`);
  const lines = body(m, extra);
  for (const t of m.transcripts) {
    lines.push('', `## Transcript (${t.word_count} words${t.language ? `, ${t.language}` : ''}${timingNote(t.timing)})`, '');
    let last: string | null | undefined;
    for (const s of t.segments) {
      const who = s.speaker !== last ? `**${s.speaker ?? 'Unknown'}** ` : '';
      lines.push(`[${clockOrDashes(s.start_ms)}] ${who}${s.text}`, '');
      last = s.speaker;
    }
    lines.pop();
  }
  return `${lines.join('\n')}\n`;
}

/** syntheo://series/{id}: the series and its meetings, newest first. */
export function seriesMarkdown(series: SeriesRef, meetings: MeetingListItem[], total: number): string {
  const lines = [`# ${series.title}`, '', `- Series ID: \`${series.id}\``];
  if (series.cadence) lines.push(`- Cadence: ${series.cadence}`);
  lines.push(`- Meetings: ${total}${total > meetings.length ? ` (the ${meetings.length} most recent below)` : ''}`, '');
  for (const m of meetings) lines.push(`- ${m.started_at} — ${m.title} (\`${m.id}\`)${m.folder_path ? ` in ${m.folder_path}` : ''}`);
  if (meetings.length === 0) lines.push('_No meetings._');
  return `${lines.join('\n')}\n`;
}
