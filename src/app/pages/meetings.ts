import type { Context } from 'hono';
import { isSyntheoError } from '../../errors.js';
import type { Folder, MeetingFilter, MeetingListItem, SeriesRef, Store } from '../../db/store.js';
import { intParam, pager, textParam, timeTag } from '../format.js';
import { html, query, type Html } from '../html.js';
import { page, type Notice } from '../layout.js';

export const MEETINGS_PER_PAGE = 50;
/** The sidebar shows this many folders (tree order); a larger tree is filtered with the folder box. */
const FOLDERS_SHOWN = 500;

export async function meetingsPage(c: Context, store: Store): Promise<Response> {
  const q = c.req.query();
  const params = {
    q: textParam(q.q),
    folder: textParam(q.folder, 500),
    series: textParam(q.series, 100),
    from: textParam(q.from, 40),
    to: textParam(q.to, 40),
    participant: textParam(q.participant),
  };
  const filter: MeetingFilter = {
    query: params.q,
    folderPath: params.folder,
    seriesId: params.series,
    from: params.from,
    to: params.to,
    participant: params.participant,
  };
  const offset = intParam(q.offset, 0);
  let notice: Notice | null = null;
  let list: Awaited<ReturnType<Store['meetings']['list']>>;
  try {
    list = await store.meetings.list(filter, { limit: MEETINGS_PER_PAGE, offset });
  } catch (error) {
    if (!isSyntheoError(error) || (error.kind !== 'invalid' && error.kind !== 'not_found')) throw error;
    notice = { level: 'bad', text: error.message };
    list = { meetings: [], pagination: { offset, limit: MEETINGS_PER_PAGE, returned: 0, total: 0 } };
  }
  const [folders, series] = await Promise.all([store.folders.list({}, { limit: FOLDERS_SHOWN, offset: 0 }), seriesOf(store, list.meetings, params.series)]);
  const current = params.series ? series.get(params.series) : undefined;
  const body = html`<div class="layout">
<aside aria-label="Folders">
<h2>Folders</h2>
${folderTree(folders.folders, params)}
${folders.pagination.total > FOLDERS_SHOWN ? html`<p class="muted">${folders.pagination.total - FOLDERS_SHOWN} more folders: type a folder path in the filter.</p>` : ''}
</aside>
<section aria-label="Meetings">
${current ? html`<p>Series <strong>${current.title}</strong>${current.cadence ? html` (${current.cadence})` : ''} · <a href="/meetings${query({ ...params, series: undefined })}">all meetings</a></p>` : ''}
${filterForm(params)}
${
  list.meetings.length === 0
    ? html`<p class="muted">${list.pagination.total === 0 && !Object.values(params).some(Boolean) ? 'No meetings yet. Import a recording, or run `syntheo demo` for sample data.' : 'No meeting matches these filters.'}</p>`
    : html`<table>
<caption class="skip">Meetings, newest first</caption>
<thead><tr><th scope="col">Title</th><th scope="col">Started</th><th scope="col">Folder</th><th scope="col">Series</th><th scope="col">Words</th><th scope="col">Import</th></tr></thead>
<tbody>
${list.meetings.map((m) => row(m, params, series))}
</tbody>
</table>`
}
${pager('/meetings', params, list.pagination, 'meetings')}
</section>
</div>`;
  return c.html(page({ title: 'Meetings', section: 'meetings', body, notice }).value, notice ? 400 : 200);
}

function row(m: MeetingListItem, params: Record<string, string | undefined>, series: Map<string, SeriesRef>): Html {
  const s = m.series_id ? series.get(m.series_id) : undefined;
  return html`<tr>
<td><a href="/meetings/${encodeURIComponent(m.id)}">${m.title}</a></td>
<td>${timeTag(m.started_at)}</td>
<td>${m.folder_path ? html`<a href="/meetings${query({ ...params, folder: m.folder_path, offset: undefined })}">${m.folder_path}</a>` : '—'}</td>
<td>${m.series_id ? html`<a href="/meetings${query({ ...params, series: m.series_id, offset: undefined })}">${s?.title ?? m.series_id}</a>` : '—'}</td>
<td>${m.transcript_word_count}</td>
<td>${m.processing_status ? html`<span class="badge ${m.processing_status}">${m.processing_status}</span>` : ''}</td>
</tr>`;
}

/** The series named on this page (and the one filtered on), one lookup each. */
async function seriesOf(store: Store, meetings: MeetingListItem[], filtered: string | undefined): Promise<Map<string, SeriesRef>> {
  const ids = new Set(meetings.flatMap((m) => (m.series_id ? [m.series_id] : [])));
  if (filtered) ids.add(filtered);
  const out = new Map<string, SeriesRef>();
  await Promise.all(
    [...ids].map(async (id) => {
      try {
        out.set(id, await store.series.get(id));
      } catch (error) {
        if (!isSyntheoError(error) || error.kind !== 'not_found') throw error;
      }
    }),
  );
  return out;
}

function filterForm(p: Record<string, string | undefined>): Html {
  return html`<form class="filters" method="get" action="/meetings">
<label>Title or ID <input type="text" name="q" value="${p.q ?? ''}"></label>
<label>Folder <input type="text" name="folder" value="${p.folder ?? ''}" placeholder="Acme/Product"></label>
<label>From <input type="date" name="from" value="${p.from ?? ''}"></label>
<label>To <input type="date" name="to" value="${p.to ?? ''}"></label>
<label>Participant <input type="text" name="participant" value="${p.participant ?? ''}"></label>
${p.series ? html`<input type="hidden" name="series" value="${p.series}">` : ''}
<button type="submit">Filter</button>
${Object.values(p).some(Boolean) ? html`<a href="/meetings">Clear</a>` : ''}
</form>`;
}

/** Nested lists in tree order (parents come before their children). */
function folderTree(folders: Folder[], params: Record<string, string | undefined>): Html {
  if (folders.length === 0) return html`<p class="muted">No folders.</p>`;
  let out = html``;
  let depth = 0;
  for (const f of folders) {
    const d = f.path.split('/').length;
    while (depth > d) {
      out = html`${out}</li></ul>`;
      depth--;
    }
    if (depth === d) out = html`${out}</li>`;
    while (depth < d) {
      out = html`${out}<ul>`;
      depth++;
      if (depth < d) out = html`${out}<li>`;
    }
    const active = params.folder === f.path;
    out = html`${out}<li><a href="/meetings${query({ folder: f.path })}"${active ? html` aria-current="true"` : ''}>${f.name}</a> <span class="muted">${f.meeting_count}</span>`;
  }
  while (depth > 0) {
    out = html`${out}</li></ul>`;
    depth--;
  }
  return html`<ul><li><a href="/meetings">All meetings</a></li></ul>${out}`;
}
