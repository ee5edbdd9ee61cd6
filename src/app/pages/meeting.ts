import { statSync } from 'node:fs';
import type { Context } from 'hono';
import { AUDIO_FORMATS } from '../../audio/sniff.js';
import type { MeetingDetail, Store, TranscriptWord } from '../../db/store.js';
import { stamp } from '../../text/clock.js';
import { intParam, pager, timeTag } from '../format.js';
import { html, query, type Html } from '../html.js';
import { page } from '../layout.js';

/** Words per transcript page: a 30,000-word meeting is 60 pages, each rendered in a few ms. */
export const WORDS_PER_PAGE = 500;

/** The recording of an imported meeting, when its file is still there and a browser can play its format. */
export function playableRecording(m: MeetingDetail): { path: string; format: string; size: number } | null {
  const job = m.recording_import;
  if (!job || !(AUDIO_FORMATS as readonly string[]).includes(job.file_format)) return null;
  try {
    const st = statSync(job.file_path);
    return st.isFile() ? { path: job.file_path, format: job.file_format, size: st.size } : null;
  } catch {
    return null;
  }
}

export async function meetingPage(c: Context, store: Store): Promise<Response> {
  const id = c.req.param('id')!;
  const m = await store.meetings.get(id);
  const hit = c.req.query('hit') === undefined ? undefined : intParam(c.req.query('hit'), 0);
  // A search hit opens the page that holds it.
  const offset = hit !== undefined ? hit - (hit % WORDS_PER_PAGE) : intParam(c.req.query('offset'), 0);
  const transcript = m.transcript ? await store.transcripts.page(id, { limit: WORDS_PER_PAGE, offset }) : null;
  const audio = playableRecording(m);
  const body = html`
<dl class="facts">
<dt>Started</dt><dd>${timeTag(m.started_at)}</dd>
${m.ended_at ? html`<dt>Ended</dt><dd>${timeTag(m.ended_at)}</dd>` : ''}
${m.folder_path ? html`<dt>Folder</dt><dd><a href="/meetings${query({ folder: m.folder_path })}">${m.folder_path}</a></dd>` : ''}
${m.series ? html`<dt>Series</dt><dd><a href="/meetings${query({ series: m.series.id })}">${m.series.title}</a></dd>` : ''}
${m.processing_status ? html`<dt>Import</dt><dd><span class="badge ${m.processing_status}">${m.processing_status}</span>${m.recording_import?.error ? html` ${m.recording_import.error}` : ''}</dd>` : ''}
${m.pending_proposal_count > 0 ? html`<dt>Proposals</dt><dd><a href="/proposals${query({ meeting: m.id })}">${m.pending_proposal_count} pending</a></dd>` : ''}
<dt>ID</dt><dd><code>${m.id}</code></dd>
</dl>
${audio ? html`<h2>Recording</h2><audio id="recording" controls preload="metadata" src="/meetings/${encodeURIComponent(m.id)}/audio"></audio><p class="muted">Click a turn's time to play from there.</p>` : ''}
<h2>Note</h2>
${m.note.trim() ? html`<div class="note">${m.note}</div>` : html`<p class="muted">No note.</p>`}
<h2>Summaries</h2>
${m.summaries.length === 0 ? html`<p class="muted">No summary.</p>` : m.summaries.map((s) => html`<h3>${s.title}</h3><div class="note">${s.content}</div>`)}
<h2>Participants</h2>
${m.participants.length === 0 ? html`<p class="muted">None recorded.</p>` : html`<ul>${m.participants.map((p) => html`<li>${p.name}${p.role ? html` <span class="muted">(${p.role})</span>` : ''}${p.email ? html` · ${p.email}` : ''}</li>`)}</ul>`}
<h2>Action items</h2>
${m.action_items.length === 0 ? html`<p class="muted">None.</p>` : html`<ul>${m.action_items.map((a) => html`<li>${a.done ? '✓ ' : ''}${a.text}${a.assignee ? html` — <strong>${a.assignee}</strong>` : ''}${a.due_date ? html` (due ${a.due_date})` : ''}</li>`)}</ul>`}
<h2 id="transcript">Transcript</h2>
${transcript ? transcriptView(m.id, transcript.words, transcript.pagination, audio !== null, hit, transcript.timing) : html`<p class="muted">No transcript${m.processing_status && m.processing_status !== 'done' && m.processing_status !== 'failed' ? ' yet: the import is in progress' : ''}.</p>`}
`;
  return c.html(page({ title: m.title, section: 'meetings', body }).value);
}

interface Turn {
  speaker: string | null;
  startMs: number | null;
  offset: number;
  words: TranscriptWord[];
}

function turnsOf(words: TranscriptWord[]): Turn[] {
  const turns: Turn[] = [];
  for (const w of words) {
    const last = turns.at(-1);
    if (last && last.speaker === w.speaker) last.words.push(w);
    else turns.push({ speaker: w.speaker, startMs: w.start_ms, offset: w.index, words: [w] });
  }
  return turns;
}

function transcriptView(meetingId: string, words: TranscriptWord[], p: Parameters<typeof pager>[2], seekable: boolean, hit: number | undefined, timing: string | undefined): Html {
  const turns = turnsOf(words);
  const path = `/meetings/${encodeURIComponent(meetingId)}`;
  return html`${timing ? html`<p class="muted">Word times are ${timing} (spread over the subtitle cues), not measured.</p>` : ''}
${pager(path, {}, p, 'words', '#transcript')}
<div class="transcript">
${turns.map((t) => {
  const isHit = hit !== undefined && hit >= t.offset && hit < t.offset + t.words.length;
  const time = t.startMs === null ? '' : stamp(t.startMs);
  return html`<div class="turn${isHit ? ' hit' : ''}" id="${isHit ? 'hit' : `w${t.offset}`}">
<div class="when">${seekable && t.startMs !== null ? html`<button type="button" class="seek" data-seek="${t.startMs}" aria-label="Play from ${time}">${time}</button>` : time}</div>
<div>${t.speaker ? html`<span class="who">${t.speaker}:</span> ` : ''}${t.words.map((w) => w.text).join(' ')}</div>
</div>`;
})}
</div>
${pager(path, {}, p, 'words', '#transcript')}`;
}
