// The app's server time per page on a large database (the Hono app called in-process: no socket, no
// browser), the 30,000-word meeting painted in Chromium, and the RSS a 1 GiB upload adds to `syntheo app`.
//   node dist/bench/app.js [--db bench/.data/large.db] [--requests 200] [--upload-mb 1024]
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync, ftruncateSync, createReadStream } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/db/engine.js';
import { openDatabase } from '../src/db/open.js';
import type { Store } from '../src/db/store.js';
import { createLogger } from '../src/log.js';
import { PACKAGE_ROOT } from '../src/package.js';
import { wavHeader } from '../src/audio/wav.js';
import { mountRoutes } from '../src/app/routes.js';
import { createApp, startServer } from '../src/app/server.js';
import { createAccess } from '../src/app/security.js';
import { benchArgs } from './args.js';
import { median, ms, printTable, quantile, type Row } from './stats.js';

const CLI = join(PACKAGE_ROOT, 'dist', 'src', 'cli', 'main.js');
const PAGE_BUDGET_MS = 20;

const args = benchArgs('app', "The app's server time per page, the longest transcript painted in Chromium, and an upload's RSS.", {
  db: { type: 'string', default: 'bench/.data/large.db', value: 'FILE', description: 'Database (made by generate.js)' },
  requests: { type: 'string', default: '200', value: 'N', description: 'Requests per page kind' },
  'upload-mb': { type: 'string', default: '1024', value: 'N', description: 'Size of the uploaded recording (0: skip)' },
});

async function pages(store: Store, n: number): Promise<Row[]> {
  const access = createAccess('127.0.0.1', 7717);
  const uploads = { dir: mkdtempSync(join(tmpdir(), 'syntheo-bench-uploads-')), maxBytes: 1, pollMs: 500 };
  const app = createApp({ access, logger: createLogger('silent'), mount: mountRoutes({ store, logger: createLogger('silent'), uploads, env: {} }) });
  const headers = { host: '127.0.0.1:7717', cookie: `${access.cookieName}=${access.session}` };
  const get = async (path: string): Promise<number> => {
    const t0 = performance.now();
    const res = await app.fetch(new Request(`http://127.0.0.1:7717${path}`, { headers }));
    const body = await res.text();
    const t = performance.now() - t0;
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}\n${body.slice(0, 500)}`);
    return t;
  };
  const { meetings } = await store.meetings.list({}, { limit: 200, offset: 0 });
  const folders = (await store.folders.list({}, { limit: 200, offset: 0 })).folders.map((f) => f.path);
  const ids = meetings.map((m) => m.id);
  const longestId = findLongest(store.location);
  const longWords = await store.transcripts.wordCount(longestId);
  // Pending proposals to review (the generator makes none).
  if ((await store.proposals.list({ status: 'pending' }, { limit: 1, offset: 0 })).pagination.total < 50)
    for (const id of ids.slice(0, 50)) await store.proposals.proposeMemoEdit({ meetingId: id, content: `Bench note ${Date.now()}\n\n- one\n- two\n`, proposedBy: 'bench' }).catch(() => undefined);
  const proposals = (await store.proposals.list({ status: 'pending' }, { limit: 50, offset: 0 })).proposals.map((p) => p.id);
  const titleWords = ['budget', 'launch', 'hiring', 'roadmap', 'pricing', 'customer'];
  // Search words said in the transcripts (the generator's vocabulary is made-up syllables).
  const said = [...new Set((await store.transcripts.page(longestId, { limit: 500, offset: 0 })).words.map((w) => w.text.toLowerCase().replace(/[^\p{L}]/gu, '')))].filter((w) => w.length >= 6);
  const words = said.slice(0, 6);
  const kinds: [string, (i: number) => string][] = [
    ['meetings, first page', () => '/meetings'],
    ['meetings, deep pages (offset up to 50,000)', (i) => `/meetings?offset=${(i * 997) % 50_000}`],
    ['meetings in a folder', (i) => `/meetings?folder=${encodeURIComponent(folders[i % folders.length]!)}`],
    ['meetings, title fragment', (i) => `/meetings?q=${titleWords[i % titleWords.length]}`],
    ['meetings, date range', (i) => `/meetings?from=2025-0${(i % 9) + 1}-01&to=2025-0${(i % 9) + 1}-28`],
    ['a meeting (varied), first transcript page', (i) => `/meetings/${ids[i % ids.length]}`],
    [`longest meeting (${longWords} words), first page`, () => `/meetings/${longestId}`],
    ['longest meeting, last page', () => `/meetings/${longestId}?offset=${Math.max(0, longWords - 500)}`],
    ['proposals inbox', () => '/proposals'],
    ['a proposal (diff)', (i) => `/proposals/${proposals[i % proposals.length]}`],
    [`search (one word said: ${words.slice(0, 3).join(', ')}...)`, (i) => `/search?q=${words[i % words.length]}`],
    ['imports', () => '/imports'],
  ];
  const rows: Row[] = [];
  for (const [name, path] of kinds) {
    await get(path(0));
    const times: number[] = [];
    for (let i = 0; i < n; i++) times.push(await get(path(i)));
    const p50 = median(times);
    const budgeted = !name.startsWith('search') && !name.startsWith('imports');
    rows.push({ name: `page: ${name}`, value: ms(p50), detail: `p99 ${ms(quantile(times, 0.99))}, n=${n}`, budget: budgeted ? `p50 < ${PAGE_BUDGET_MS} ms` : undefined, ok: budgeted ? p50 < PAGE_BUDGET_MS : undefined });
  }
  // The title fragment's cost is the Store's query (a LIKE over 100,000 titles and an exact total), not the page's.
  const alone: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await store.meetings.list({ query: titleWords[i % titleWords.length] }, { limit: 50, offset: 0 });
    alone.push(performance.now() - t0);
  }
  rows.push({ name: 'store.meetings.list title fragment alone (no page)', value: ms(median(alone)), detail: `p99 ${ms(quantile(alone, 0.99))}, n=${n}` });
  rmSync(uploads.dir, { recursive: true, force: true });
  return rows;
}

/** The meeting with the longest transcript (the generator makes one of 30,000 words). A bench may ask SQL directly. */
function findLongest(location: string): string {
  const db = openDatabase(location, { create: false });
  try {
    return (db.sqlite.prepare('SELECT meeting_id AS id FROM transcripts ORDER BY word_count DESC LIMIT 1').get() as { id: string }).id;
  } finally {
    db.close();
  }
}

/** The longest meeting's page in Chromium: navigation start -> first contentful paint, and -> load. */
async function browser(store: Store): Promise<Row[]> {
  if (!existsSync('/usr/bin/chromium')) return [{ name: 'browser: longest transcript painted', value: 'skipped', detail: 'no /usr/bin/chromium (apt-get install chromium)' }];
  const { chromium } = await import('playwright-core');
  const id = findLongest(store.location);
  const pagesOfWords = Math.max(1, Math.ceil((await store.transcripts.wordCount(id)) / 500));
  const running = await startServer({ host: '127.0.0.1', port: 0, logger: createLogger('silent'), mount: mountRoutes({ store, logger: createLogger('silent'), uploads: { dir: join(tmpdir(), 'unused'), maxBytes: 1, pollMs: 500 }, env: {} }) });
  const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const page = await b.newPage();
    await page.goto(running.access.openUrl);
    const paints: number[] = [];
    const loads: number[] = [];
    for (let i = 0; i < 10; i++) {
      await page.goto(`${running.access.baseUrl}/meetings/${id}?offset=${((i * 7) % pagesOfWords) * 500}`);
      await page.locator('.turn').first().waitFor();
      const t = await page.evaluate(() => ({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        load: (performance.getEntriesByType('navigation' as never)[0] as unknown as { loadEventEnd: number }).loadEventEnd,
      }));
      paints.push(t.fcp);
      loads.push(t.load);
    }
    return [
      { name: 'browser: longest transcript, first turns painted (FCP)', value: ms(median(paints), 0), detail: `max ${ms(Math.max(...paints), 0)}; load event median ${ms(median(loads), 0)}; 10 pages of 500 words`, budget: '< 1000 ms', ok: median(paints) < 1000 },
    ];
  } finally {
    await b.close();
    await running.close();
  }
}

function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** A real `syntheo app` process: its peak RSS before and after a streamed multipart upload of `mb` MiB. */
async function upload(mb: number): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'syntheo-bench-app-'));
  try {
    const file = join(dir, 'big.wav');
    const bytes = mb * 1024 * 1024;
    const fd = openSync(file, 'w');
    writeSync(fd, wavHeader(bytes - 44));
    ftruncateSync(fd, bytes);
    closeSync(fd);
    const child = spawn(process.execPath, [CLI, 'app', '--db', join(dir, 'app.db'), '--port', '0', '--no-open', '--no-worker'], { stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, SYNTHEO_APP_MAX_UPLOAD_MB: String(mb + 1) } });
    const first = await new Promise<string>((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(d.toString().split('\n')[0]!)));
    const openUrl = first.replace('Syntheo is open at ', '');
    const base = new URL(openUrl).origin;
    const cookie = (await fetch(openUrl, { redirect: 'manual' })).headers.get('set-cookie')!.split(';')[0]!;
    await new Promise((r) => setTimeout(r, 500));
    const before = peakRssMb(child.pid!);
    const boundary = 'benchboundary';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="recording"; filename="big.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const t0 = performance.now();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}/imports`, { method: 'POST', headers: { cookie, origin: base, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + bytes + tail.length } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.write(head);
      const body = createReadStream(file);
      body.pipe(req, { end: false });
      body.on('end', () => req.end(tail));
    });
    const seconds = (performance.now() - t0) / 1000;
    const after = peakRssMb(child.pid!);
    await new Promise((r) => {
      child.once('exit', r);
      child.kill('SIGTERM');
    });
    // Without a worker the import itself is refused (HTTP 400) after the file was stored: the upload is what is measured.
    return [
      { name: `upload: ${mb} MiB recording streamed to the data folder`, value: `${Math.round(mb / seconds)} MiB/s`, detail: `${seconds.toFixed(2)} s, HTTP ${status}` },
      { name: 'upload: peak RSS increase of syntheo app', value: `${(after - before).toFixed(1)} MiB`, detail: `peak ${before.toFixed(0)} -> ${after.toFixed(0)} MiB`, budget: '< 64 MiB', ok: after - before < 64 },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (!existsSync(args.db)) {
  process.stderr.write(`app: ${args.db} does not exist. Make it with \`node dist/bench/generate.js --out ${args.db}\`.\n`);
  process.exit(2);
}
const store = await openStore(args.db, { create: false });
const rows = [...(await pages(store, Number(args.requests))), ...(await browser(store))];
await store.close();
if (Number(args['upload-mb']) > 0) rows.push(...(await upload(Number(args['upload-mb']))));
process.stdout.write(`${printTable(`syntheo app (${args.db})`, rows)}\n`);
