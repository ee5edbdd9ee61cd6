import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/db/engine.js';
import type { Store } from '../../src/db/store.js';
import { enqueueImport } from '../../src/db/queries/imports.js';
import { registerWorker } from '../../src/db/queries/jobs.js';
import { makeActionItem, makeMeeting, makeParticipant, makeSummary, makeTranscript } from '../support/factories.js';
import { openTestDb } from '../support/db.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { startApp, type AppProcess } from './support.js';

// The pages and endpoints over plain HTTP against the real `syntheo app` (its worker included), with
// data made by the factories and read back through the Store.

const HOSTILE = `<script>alert('t')</script><img src=x onerror="alert(1)">`;
let db: ReturnType<typeof openTestDb>;
let store: Store;
let app: AppProcess;
let cookie: string;
let hostile: string;
let long: string;
let recorded: string;

const get = async (path: string, headers: Record<string, string> = {}) => fetch(`${app.base}${path}`, { headers: { cookie, ...headers }, redirect: 'manual' });
const post = async (path: string, body: URLSearchParams | FormData) =>
  fetch(`${app.base}${path}`, { method: 'POST', body, headers: { cookie, origin: app.base }, redirect: 'manual' });

beforeAll(async () => {
  db = openTestDb();
  hostile = makeMeeting(db.sqlite, { title: `Budget ${HOSTILE}`, note: `Note ${HOSTILE}`, folderPath: `Team/${'<b>'}` });
  makeSummary(db.sqlite, hostile, { title: HOSTILE, content: `Summary ${HOSTILE}` });
  makeParticipant(db.sqlite, hostile, { name: HOSTILE });
  makeActionItem(db.sqlite, hostile, { text: HOSTILE, assignee: HOSTILE });
  makeTranscript(db.sqlite, hostile, { texts: ['hello', '<script>alert(2)</script>', 'world'], speakers: [HOSTILE] });
  long = makeMeeting(db.sqlite, { title: 'Long one' });
  makeTranscript(db.sqlite, long, { words: 1200, turn: 10 });
  // An imported meeting whose recording is in the data folder.
  registerWorker(db.sqlite, { id: 'wrk_test', concurrency: 1, version: 'test' });
  const wav = join(db.dir, 'budget.wav');
  await copyFile(fixturePath('budget', 'wav'), wav);
  recorded = (await enqueueImport(db.sqlite, { filePath: wav, title: 'Recorded' })).meeting_id;
  store = await openStore(db.path, { create: false });
  // With its worker (args: no --no-worker), which processes the uploads.
  app = await startApp(db.path, { args: [], env: { SYNTHEO_APP_POLL_MS: '50' } });
  cookie = await app.login();
}, 60_000);

afterAll(async () => {
  const exit = await app?.stop();
  expect(exit).toEqual({ code: 0, signal: null });
  await store?.close();
  db?.cleanup();
});

/** Every <script> is ours (external, empty); no element from the data. */
function expectHarmless(body: string) {
  for (const [, attrs, content] of body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
    expect(attrs).toMatch(/src="\/assets\/app\.js"/);
    expect(content).toBe('');
  }
  expect(body).not.toMatch(/<img/i);
  expect(body).not.toMatch(/<[^>]*\sonerror=/i);
}

describe('hostile text is shown as text', () => {
  it('on the meeting page, the list, search and the folder tree', async () => {
    for (const path of [`/meetings/${hostile}`, '/meetings', `/search?q=hello`, `/meetings?q=${encodeURIComponent('<script>')}`]) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      const body = await res.text();
      expectHarmless(body);
      expect(body, path).toContain('&lt;script&gt;alert(');
    }
    const page = await (await get(`/meetings/${hostile}`)).text();
    expect(page).toContain('<h1>Budget &lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(1)&quot;&gt;</h1>');
    expect(page).toContain('hello &lt;script&gt;alert(2)&lt;/script&gt; world');
  });

  it('in a search query echoed back', async () => {
    const res = await get(`/search?q=${encodeURIComponent(`"><script>alert(3)</script>`)}`);
    const body = await res.text();
    expectHarmless(body);
    expect(body).toContain('&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;');
  });
});

describe('meetings', () => {
  it('pages through a transcript, 500 words a page, and opens a search hit on its page', async () => {
    const first = await (await get(`/meetings/${long}`)).text();
    expect(first).toContain('1–500 of 1200 words');
    expect(first).toContain(`href="/meetings/${long}?offset=500#transcript" rel="next"`);
    const third = await (await get(`/meetings/${long}?offset=1000`)).text();
    expect(third).toContain('1001–1200 of 1200 words');
    expect(third).toContain('w1000 w1001');
    const hit = await (await get(`/meetings/${long}?hit=734`)).text();
    expect(hit).toContain('501–1000 of 1200 words');
    expect(hit).toMatch(/<div class="turn hit" id="hit">[\s\S]*?w730 w731 w732 w733 w734/);
  });

  it('says what is wrong with a bad filter, and 404s an unknown meeting', async () => {
    const bad = await get('/meetings?from=yesterday');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('from');
    const missing = await get('/meetings/mtg_nope');
    expect(missing.status).toBe(404);
  });
});

describe('the recording', () => {
  it('plays with byte ranges, by meeting ID only', async () => {
    const size = (await readFile(fixturePath('budget', 'wav'))).length;
    const whole = await get(`/meetings/${recorded}/audio`);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/wav');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect((await whole.arrayBuffer()).byteLength).toBe(size);
    const part = await get(`/meetings/${recorded}/audio`, { range: 'bytes=100-199' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${size}`);
    const bytes = Buffer.from(await part.arrayBuffer());
    expect(bytes.equals((await readFile(fixturePath('budget', 'wav'))).subarray(100, 200))).toBe(true);
    const tail = await get(`/meetings/${recorded}/audio`, { range: 'bytes=-10' });
    expect(tail.headers.get('content-range')).toBe(`bytes ${size - 10}-${size - 1}/${size}`);
    expect((await get(`/meetings/${recorded}/audio`, { range: `bytes=${size}-` })).status).toBe(416);
    const page = await (await get(`/meetings/${recorded}`)).text();
    expect(page).toContain(`<audio id="recording" controls preload="metadata" src="/meetings/${recorded}/audio">`);
  });

  it('serves nothing for a meeting without a recording nor for a path', async () => {
    expect((await get(`/meetings/${hostile}/audio`)).status).toBe(404);
    for (const path of ['/meetings/..%2F..%2F..%2Fetc%2Fpasswd/audio', '/meetings/%2Fetc%2Fpasswd/audio', '/meetings/../../etc/passwd']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain('root:');
    }
  });
});

describe('proposals', () => {
  it('applies one on a click, and the meeting has it', async () => {
    const p = await store.proposals.proposeMemoEdit({ meetingId: long, content: 'The new note', proposedBy: 'test' });
    const page = await (await get(`/proposals/${p.id}`)).text();
    expect(page).toContain('<div class="add">+The new note</div>');
    const res = await post(`/proposals/${p.id}/apply`, new URLSearchParams());
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/proposals/${p.id}?done=applied`);
    expect((await store.proposals.get(p.id)).status).toBe('applied');
    expect((await store.meetings.get(long)).note).toBe('The new note');
  });

  it('declines one', async () => {
    const p = await store.proposals.proposeMemoEdit({ meetingId: hostile, content: 'Not this', proposedBy: 'test' });
    const res = await post(`/proposals/${p.id}/decline`, new URLSearchParams());
    expect(res.status).toBe(303);
    expect((await store.proposals.get(p.id)).status).toBe('declined');
    expect((await store.meetings.get(hostile)).note).toBe(`Note ${HOSTILE}`);
  });

  it('refuses a stale one without the confirm, and applies it with', async () => {
    const p = await store.proposals.proposeMemoEdit({ meetingId: recorded, content: 'Proposed note', proposedBy: 'test' });
    // The note changes after the proposal was made.
    const other = await store.proposals.proposeMemoEdit({ meetingId: recorded, content: 'Edited meanwhile', proposedBy: 'test' });
    await store.proposals.apply(other.id, { force: false });
    const refused = await post(`/proposals/${p.id}/apply`, new URLSearchParams());
    expect(refused.headers.get('location')).toBe(`/proposals/${p.id}?done=stale`);
    expect((await store.proposals.get(p.id)).status).toBe('pending');
    expect((await store.meetings.get(recorded)).note).toBe('Edited meanwhile');
    const page = await get(`/proposals/${p.id}?done=stale`);
    expect(page.status).toBe(409);
    const body = await page.text();
    expect(body).toContain('Not applied: the text changed');
    expect(body).toContain('<div class="del">-Edited meanwhile</div>');
    const forced = await post(`/proposals/${p.id}/apply`, new URLSearchParams({ confirm: 'stale' }));
    expect(forced.headers.get('location')).toBe(`/proposals/${p.id}?done=applied`);
    expect((await store.meetings.get(recorded)).note).toBe('Proposed note');
  });
});

describe('imports', () => {
  it('refuses a file that is not a recording, says why and keeps nothing', async () => {
    const form = new FormData();
    form.set('recording', new Blob(['just some words, not audio at all\n'.repeat(20)]), 'notes.wav');
    const res = await post('/imports', form);
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('Not imported:');
    expect(body).toMatch(/text/);
    expect(await readdir(join(db.dir, 'uploads'))).toEqual([]);
  });

  it('streams an upload to the data folder, queues it through the Store and sends progress until done', async () => {
    const vtt = await readFile(join(import.meta.dirname, '..', 'fixtures', 'transcripts', 'zoom.vtt'));
    const form = new FormData();
    form.set('recording', new Blob([vtt]), '../../evil/Weekly <sync>.vtt');
    form.set('title', '');
    const res = await post('/imports', form);
    expect(res.status, await res.clone().text()).toBe(303);
    const jobId = new URL(res.headers.get('location')!, app.base).searchParams.get('job')!;
    const job = await store.imports.get(jobId);
    // The browser's file name is reduced to a base name inside the data folder.
    expect(job.file_path.startsWith(join(db.dir, 'uploads'))).toBe(true);
    expect(job.file_path.endsWith('/Weekly <sync>.vtt')).toBe(true);
    expect(job.title).toBe('Weekly <sync>');
    const events = await (await fetch(`${app.base}/imports/events?ids=${jobId}`, { headers: { cookie }, signal: AbortSignal.timeout(40_000) })).text();
    const states = [...events.matchAll(/^data: (\{.*\})$/gm)].map((m) => (JSON.parse(m[1]!) as { state: string }).state);
    expect(states.at(-1)).toBe('done');
    expect(events).toMatch(/event: end/);
    expect((await store.imports.get(jobId)).processing_status).toBe('done');
    expect((await store.transcripts.wordCount(job.meeting_id)) > 0).toBe(true);
    const list = await (await get('/imports')).text();
    expect(list).toContain(`id="job-${jobId}" data-state="done"`);
    expect(list).toContain('Weekly &lt;sync&gt;');
  });

  it('refuses an upload over the size limit', async () => {
    const big = join(db.dir, 'big.bin');
    await writeFile(big, Buffer.alloc(1024));
    const small = await startApp(db.path, { env: { SYNTHEO_APP_MAX_UPLOAD_MB: '1' } });
    try {
      const c = await small.login();
      const form = new FormData();
      form.set('recording', new Blob([Buffer.alloc(2 * 1024 * 1024)]), 'big.wav');
      const res = await fetch(`${small.base}/imports`, { method: 'POST', body: form, headers: { cookie: c, origin: small.base }, redirect: 'manual' });
      expect(res.status).toBe(413);
      expect(await res.text()).toContain('larger than this server accepts (1 MiB)');
    } finally {
      await small.stop();
    }
  });
});

describe('settings', () => {
  it('stores the servers with the checks of config set, and never an API key', async () => {
    const bad = await post('/settings', new URLSearchParams({ 'transcription.url': 'not a url', 'llm.model': 'llama3.2' }));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Nothing saved: transcription.url');
    expect((await store.settings.read())['llm.model']).toBeUndefined();
    const withPassword = await post('/settings', new URLSearchParams({ 'llm.url': 'http://me:secret@127.0.0.1:11434' }));
    expect(withPassword.status).toBe(400);
    expect((await store.settings.read())['llm.url']).toBeUndefined();
    const good = await post('/settings', new URLSearchParams({ 'llm.url': 'http://127.0.0.1:11434', 'llm.model': 'llama3.2', 'llm.api_key': 'sk-nope' }));
    expect(good.status).toBe(303);
    expect(good.headers.get('location')).toBe('/settings?saved=2');
    const stored = await store.settings.read();
    expect(stored['llm.url']).toBe('http://127.0.0.1:11434');
    expect(stored['llm.model']).toBe('llama3.2');
    expect(Object.keys(stored)).not.toContain('llm.api_key');
    const cleared = await post('/settings', new URLSearchParams({ 'llm.model': '' }));
    expect(cleared.headers.get('location')).toBe('/settings?saved=1');
    expect((await store.settings.read())['llm.model']).toBeUndefined();
    const page = await (await get('/settings?saved=1')).text();
    expect(page).toContain('Saved 1 setting.');
    expect(page).toContain('<td>not set</td><td>environment only (SYNTHEO_LLM_API_KEY)</td>');
  });
});
