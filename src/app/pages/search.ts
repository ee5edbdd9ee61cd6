import type { Context } from 'hono';
import { isSyntheoError } from '../../errors.js';
import type { SearchHit, Store } from '../../db/store.js';
import { stamp } from '../../text/clock.js';
import { intParam, pager, snippet, textParam, timeTag } from '../format.js';
import { html, query, type Html } from '../html.js';
import { page, type Notice } from '../layout.js';

const HITS_PER_PAGE = 20;

/** The same search as search_transcripts; a transcript hit opens the meeting at the hit's word. */
export async function searchPage(c: Context, store: Store): Promise<Response> {
  const q = textParam(c.req.query('q'));
  const offset = intParam(c.req.query('offset'), 0);
  let notice: Notice | null = null;
  let body: Html;
  if (q === undefined) body = html`<p class="muted">Type words that were said, in any meeting.</p>`;
  else {
    try {
      const { hits, pagination } = await store.search.transcripts({ query: q }, { limit: HITS_PER_PAGE, offset });
      body =
        hits.length === 0
          ? html`<p>Nothing matches “${q}”.</p>`
          : html`<ol class="hits" start="${offset + 1}">${hits.map(hitItem)}</ol>${pager('/search', { q }, pagination, 'hits')}`;
    } catch (error) {
      if (!isSyntheoError(error) || error.kind !== 'invalid') throw error;
      notice = { level: 'bad', text: error.message };
      body = html``;
    }
  }
  return c.html(page({ title: q ? `Search: ${q}` : 'Search', heading: q ? html`Search: “${q}”` : 'Search', section: 'search', body, notice, q: q ?? '' }).value);
}

function hitItem(h: SearchHit): Html {
  const href = h.kind === 'transcript' && h.offset !== null ? `/meetings/${encodeURIComponent(h.meeting_id)}${query({ hit: h.offset })}#hit` : `/meetings/${encodeURIComponent(h.meeting_id)}`;
  return html`<li><p><a href="${href}">${h.title}</a> <span class="muted">· ${timeTag(h.started_at)} · ${h.kind}${h.speaker ? html` · ${h.speaker}` : ''}${h.start_ms !== null ? html` · ${stamp(h.start_ms)}` : ''}</span></p>
<p>${snippet(h.snippet)}</p></li>`;
}
