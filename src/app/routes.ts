import type { Logger } from '../log.js';
import { html } from './html.js';
import { page } from './layout.js';
import type { Mount } from './server.js';

/** The pages that read and change data. */
export async function mountRoutes(_opts: { dbPath: string; logger: Logger }): Promise<Mount> {
  return (app) => {
    app.get('/meetings', (c) => c.html(page({ title: 'Meetings', section: 'meetings', body: html`<p class="muted">No meetings yet.</p>` }).value));
  };
}
