import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/db/engine.js';
import type { Store } from '../../src/db/store.js';
import { startTranscribeServer, type TranscribeServer } from '../../tools/transcribe-server/server.js';
import { makeMeeting, makeTranscript } from '../support/factories.js';
import { openTestDb } from '../support/db.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { needs } from '../support/system-tools.js';
import { CLI, ROOT, cleanEnv } from '../support/worker-process.js';
import { startApp, type AppProcess } from './support.js';

// The app in Debian's Chromium, driven by playwright-core: the flows of issue 16, axe-core on every
// page (no serious or critical violation), and the README's screenshots: into docs/screenshots/ with
// SYNTHEO_SCREENSHOTS=1 (`SYNTHEO_SCREENSHOTS=1 npx vitest run test/app/browser.test.ts`), else into a temporary
// folder, so that a test run leaves a clone as it was.

const skip = needs('chromium');
// The upload flow transcribes a real recording with the pocketsphinx server.
const noSpeech = skip || needs('pocketsphinx');
const KEEP_SHOTS = process.env.SYNTHEO_SCREENSHOTS === '1';
let SHOTS = join(ROOT, 'docs', 'screenshots');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

let db: ReturnType<typeof openTestDb>;
let store: Store;
let app: AppProcess;
let speech: TranscribeServer | undefined;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let long: string;
const cspViolations: string[] = [];

async function checkAccessibility(p: Page, name: string): Promise<void> {
  // evaluate() runs through the DevTools protocol, which the page's CSP does not govern: the CSP stays on.
  await p.evaluate(await readFile(AXE, 'utf8'));
  const result = await p.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(o: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown }[] }[] }> } }).axe;
    return axe.run({ resultTypes: ['violations'] });
  });
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${name}: ${v.id} (${v.impact}) ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target).slice(0, 3))}`)).toEqual([]);
}

/** The element's text, spaces squeezed (playwright-core has no web-first assertions: expect.poll retries). */
async function text(l: Locator): Promise<string> {
  return ((await l.textContent({ timeout: 10_000 })) ?? '').replace(/\s+/g, ' ').trim();
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

describe.skipIf(skip)('the app in Chromium', () => {
  beforeAll(async () => {
    db = openTestDb();
    const demo = spawnSync(process.execPath, [CLI, 'demo', '--db', db.path], { env: cleanEnv(), encoding: 'utf8' });
    expect(demo.status, demo.stderr).toBe(0);
    long = makeMeeting(db.sqlite, { title: 'All-hands: a long transcript', folderPath: 'Acme' });
    makeTranscript(db.sqlite, long, { words: 1500, turn: 25, speakers: ['Alice Martin', 'Bob Chen', 'Chloé Dubois'] });
    store = await openStore(db.path, { create: false });
    if (!noSpeech) {
      speech = await startTranscribeServer({ concurrency: 1 });
      await store.settings.write('transcription.url', speech.url);
      await store.settings.write('transcription.model', 'pocketsphinx-en-us');
    }
    if (!KEEP_SHOTS) SHOTS = await mkdtemp(join(tmpdir(), 'syntheo-shots-'));
    await mkdir(SHOTS, { recursive: true });
    [app, browser] = await Promise.all([
      startApp(db.path, { args: [], env: { SYNTHEO_APP_POLL_MS: '200' } }),
      chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] }),
    ]);
    context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-GB' });
    page = await context.newPage();
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, 120_000);

  afterAll(async () => {
    if (!KEEP_SHOTS) await rm(SHOTS, { recursive: true, force: true });
    await browser?.close();
    const exit = await app?.stop();
    expect(exit).toEqual({ code: 0, signal: null });
    await speech?.close();
    await store?.close();
    db?.cleanup();
    // Nothing on any page tried to run inline script or style.
    expect(cspViolations).toEqual([]);
  });

  it('opens from the printed link, and the link leaves no token behind', async () => {
    await page.goto(app.openUrl);
    expect(page.url()).toBe(`${app.base}/meetings`);
    await expect.poll(() => text(page.locator('h1'))).toBe('Meetings');
    const cookies = await context.cookies();
    expect(cookies).toEqual([expect.objectContaining({ name: `syntheo_${app.port}`, httpOnly: true, sameSite: 'Strict' })]);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(11);
    await shot('meetings');
    await checkAccessibility(page, 'meetings');
  });

  it('browses the demo meetings by folder and series', async () => {
    await page.goto(`${app.base}/meetings`);
    await page.getByRole('link', { name: 'Launch', exact: true }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: 'Launch planning: date, pricing and press' }).click();
    await expect.poll(() => text(page.locator('h1'))).toBe('Launch planning: date, pricing and press');
    await page.getByText('Alice Martin').first().waitFor();
    await shot('meeting');
    await checkAccessibility(page, 'meeting');
    await page.goto(`${app.base}/meetings`);
    await page.locator('td a[href*="series="]').first().click();
    await page.getByText(/^Series /).waitFor();
    const rows = await page.locator('tbody tr').count();
    expect(rows).toBeGreaterThan(1);
    for (const series of await page.locator('tbody tr td:nth-child(4)').allTextContents()) expect(series).toMatch(/weekly/i);
  });

  it('pages through a long transcript', async () => {
    await page.goto(`${app.base}/meetings/${long}`);
    await expect.poll(() => text(page.locator('.pager span').first())).toBe('1–500 of 1500 words');
    await checkAccessibility(page, 'long meeting');
    await page.getByRole('link', { name: 'Next' }).first().click();
    await expect.poll(() => text(page.locator('.pager span').first())).toBe('501–1000 of 1500 words');
    await expect.poll(() => text(page.locator('.turn').first())).toContain('w500');
    await page.getByRole('link', { name: 'Previous' }).first().click();
    await expect.poll(() => text(page.locator('.turn').first())).toContain('w0 ');
  });

  it('applies the demo proposal on a click, and the meeting has it', async () => {
    await page.goto(`${app.base}/meetings`);
    await page.getByRole('link', { name: 'Proposals' }).click();
    await page.locator('tbody a').first().click();
    await page.locator('.diff .add').first().waitFor();
    await shot('proposal');
    await checkAccessibility(page, 'proposal');
    const id = page.url().split('/').pop()!;
    const proposal = await store.proposals.get(id);
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => text(page.getByRole('status'))).toBe('Applied: the meeting now has this text.');
    expect((await store.proposals.get(id)).status).toBe('applied');
    const meeting = await store.meetings.get(proposal.meeting_id);
    expect(meeting.summaries.find((s) => s.id === proposal.target_id)?.content).toBe(proposal.content);
    await page.getByRole('link', { name: 'Proposals' }).click();
    await page.getByText(/No proposal is waiting\./).waitFor();
    await checkAccessibility(page, 'proposals');
  });

  it('declines one', async () => {
    const p = await store.proposals.proposeMemoEdit({ meetingId: long, content: 'A note nobody wants', proposedBy: 'assistant' });
    await page.goto(`${app.base}/proposals/${p.id}`);
    await page.getByRole('button', { name: 'Decline' }).click();
    await expect.poll(() => text(page.getByRole('status'))).toBe('Declined: nothing was changed.');
    expect((await store.proposals.get(p.id)).status).toBe('declined');
    expect((await store.meetings.get(long)).note).toBe('');
  });

  it('refuses a stale one until the change is confirmed', async () => {
    const p = await store.proposals.proposeMemoEdit({ meetingId: long, content: 'From the assistant', proposedBy: 'assistant' });
    const meanwhile = await store.proposals.proposeMemoEdit({ meetingId: long, content: 'Typed by the person meanwhile', proposedBy: 'assistant' });
    await store.proposals.apply(meanwhile.id, { force: false });
    await page.goto(`${app.base}/proposals/${p.id}`);
    await page.getByText('Stale: the note changed since this proposal was made.').waitFor();
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => text(page.getByRole('status'))).toContain('Not applied: the text changed');
    expect((await store.proposals.get(p.id)).status).toBe('pending');
    expect((await store.meetings.get(long)).note).toBe('Typed by the person meanwhile');
    await checkAccessibility(page, 'stale proposal');
    await page.getByLabel(/Apply anyway/).check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => text(page.getByRole('status'))).toBe('Applied: the meeting now has this text.');
    expect((await store.meetings.get(long)).note).toBe('From the assistant');
  });

  it('searches and lands on the hit', async () => {
    await page.goto(`${app.base}/meetings`);
    await page.getByRole('searchbox', { name: 'Search what was said' }).fill('soak testing');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => text(page.locator('h1'))).toBe('Search: “soak testing”');
    await shot('search');
    await checkAccessibility(page, 'search');
    await page.locator('.hits a').first().click();
    expect(page.url()).toMatch(/\?hit=\d+#hit$/);
    const hit = page.locator('.turn.hit');
    expect(await text(hit)).toMatch(/soak test/i);
    // In view once the browser has scrolled to the page's fragment (#hit), which it does after the click returns.
    await expect
      .poll(() => hit.evaluate((el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.top < (globalThis as unknown as { innerHeight: number }).innerHeight; }))
      .toBe(true);
  });

  it('shows the settings and tests the connection', async () => {
    await page.goto(`${app.base}/settings`);
    await checkAccessibility(page, 'settings');
    await page.getByRole('button', { name: 'Test connection' }).click();
    await expect.poll(() => page.locator('.checks li').count()).toBe(3);
    expect(await text(page.locator('.checks'))).toContain('Worker: Running');
    await shot('settings');
  });

  it.skipIf(noSpeech)('uploads a recording and follows it to done', async () => {
    const wav = join(db.dir, 'Launch review.wav');
    await copyFile(fixturePath('launch', 'wav'), wav);
    await page.goto(`${app.base}/imports`);
    await page.getByLabel(/^Recording/).setInputFiles(wav);
    await page.getByRole('button', { name: 'Import' }).click();
    await page.waitForURL(/\/imports\?job=job_/);
    const row = page.locator('tbody tr').first();
    expect(await text(row)).toContain('Launch review');
    // Live: the row changes without reloading the page.
    await expect.poll(() => row.getAttribute('data-state'), { timeout: 120_000, interval: 250 }).toBe('done');
    expect(await text(row.locator('[data-field="state"]'))).toBe('done');
    await shot('imports');
    await checkAccessibility(page, 'imports');
    await row.getByRole('link', { name: 'Launch review' }).click();
    await page.locator('audio#recording').waitFor();
    expect(await page.locator('.turn').count()).toBeGreaterThan(0);
    // Click a turn's time: the player jumps there (the audio is served with byte ranges).
    const seek = page.locator('button.seek').last();
    const at = Number(await seek.getAttribute('data-seek'));
    expect(at).toBeGreaterThan(0);
    await seek.click();
    await expect.poll(() => page.locator('audio#recording').evaluate((a) => (a as unknown as { currentTime: number }).currentTime)).toBeGreaterThanOrEqual(at / 1000 - 0.05);
  });
});
