import { bodyLimit } from 'hono/body-limit';
import type { Store } from '../db/store.js';
import type { Logger } from '../log.js';
import { serveRecording } from './audio.js';
import { intParam } from './format.js';
import { importEvents, importsPage, uploadRecording, type UploadOptions } from './pages/imports.js';
import { meetingPage } from './pages/meeting.js';
import { meetingsPage } from './pages/meetings.js';
import { applyProposal, declineProposal, proposalPage, proposalsPage } from './pages/proposals.js';
import { searchPage } from './pages/search.js';
import { SAVED, saveSettings, settingsPage, testSettings } from './pages/settings.js';
import type { Mount } from './server.js';

export interface RouteOptions {
  store: Store;
  logger: Logger;
  uploads: UploadOptions;
  env: NodeJS.ProcessEnv;
}

/** Forms other than the upload are a few short fields. */
const FORM_LIMIT = bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.text('This form is larger than the app accepts.', 413) });

/** The pages that read and change data, all through the Store. */
export function mountRoutes(o: RouteOptions): Mount {
  const { store, env } = o;
  return (app) => {
    app.get('/meetings', (c) => meetingsPage(c, store));
    app.get('/meetings/:id', (c) => meetingPage(c, store));
    app.on(['GET', 'HEAD'], '/meetings/:id/audio', (c) => serveRecording(c, store));
    app.get('/search', (c) => searchPage(c, store));
    app.get('/proposals', (c) => proposalsPage(c, store));
    app.get('/proposals/:id', (c) => proposalPage(c, store));
    app.post('/proposals/:id/apply', FORM_LIMIT, (c) => applyProposal(c, store));
    app.post('/proposals/:id/decline', FORM_LIMIT, (c) => declineProposal(c, store));
    app.get('/imports', (c) => importsPage(c, store));
    app.post('/imports', (c) => uploadRecording(c, store, o.uploads, o.logger));
    app.get('/imports/events', (c) => importEvents(c, store, o.uploads));
    app.get('/settings', (c) => {
      const saved = c.req.query('saved');
      return settingsPage(c, store, env, saved === undefined ? null : SAVED(intParam(saved, 0, 100)));
    });
    app.post('/settings', FORM_LIMIT, (c) => saveSettings(c, store, env));
    app.post('/settings/test', FORM_LIMIT, (c) => testSettings(c, store, env));
  };
}
