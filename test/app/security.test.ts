import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { tempDir } from '../support/db.js';
import { rawRequest, startApp, type AppProcess } from './support.js';

// The web app's doors, over plain HTTP against the real `syntheo app` process: the token, the cookie it
// is exchanged for, the Host check (DNS rebinding), the Origin check (CSRF) and the headers.

let app: AppProcess;
let dir: ReturnType<typeof tempDir>;

beforeAll(async () => {
  dir = tempDir();
  app = await startApp(join(dir.dir, 'syntheo.db'));
});

afterAll(async () => {
  const exit = await app?.stop();
  expect(exit).toEqual({ code: 0, signal: null });
  dir?.cleanup();
});

describe('the access token', () => {
  it('refuses a request without the token or the cookie', async () => {
    for (const path of ['/', '/meetings', '/assets/app.js', '/proposals']) {
      const res = await fetch(`${app.base}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(401);
      expect(await res.text()).toContain('Open Syntheo from the link printed by `syntheo app`');
    }
  });

  it('refuses a wrong token, and gives no cookie for it', async () => {
    const wrong = app.openUrl.replace(/token=[\w-]+/, 'token=not-the-token');
    const res = await fetch(wrong, { redirect: 'manual' });
    expect(res.status).toBe(401);
    expect(res.headers.get('set-cookie')).toBeNull();
    // A token one character off is refused too.
    const token = new URL(app.openUrl).searchParams.get('token')!;
    const near = `${app.base}/?token=${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect((await fetch(near, { redirect: 'manual' })).status).toBe(401);
  });

  it('exchanges the token for an HttpOnly SameSite=Strict cookie and redirects to the address without it', async () => {
    const res = await fetch(app.openUrl, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(new RegExp(`^syntheo_${app.port}=[\\w-]{43}; HttpOnly; SameSite=Strict; Path=/$`));
    // The cookie is not the token: a leaked cookie value is no link.
    const token = new URL(app.openUrl).searchParams.get('token')!;
    expect(cookie).not.toContain(token);
    const page = await fetch(`${app.base}/meetings`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Meetings</h1>');
  });

  it('keeps the rest of the address when it drops the token', async () => {
    const res = await fetch(`${app.openUrl.replace('/?', '/meetings?q=plan&')}`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/meetings?q=plan');
  });

  it('refuses a wrong cookie', async () => {
    const res = await fetch(`${app.base}/meetings`, { headers: { cookie: `syntheo_${app.port}=guess` }, redirect: 'manual' });
    expect(res.status).toBe(401);
  });
});

describe('the Host check (DNS rebinding)', () => {
  it('refuses a foreign Host even with a valid cookie', async () => {
    const cookie = await app.login();
    for (const host of [`evil.example:${app.port}`, 'evil.example', `127.0.0.1:${app.port + 1}`, `127.0.0.1.evil.example:${app.port}`]) {
      const res = await rawRequest(app.port, { path: '/meetings', headers: { host, cookie } });
      expect(res.status, host).toBe(403);
      expect(res.body).toContain(`Syntheo answers only at http://127.0.0.1:${app.port}`);
    }
    // A rebinding page would bring the token too: still refused, and no cookie.
    const token = new URL(app.openUrl).search;
    const res = await rawRequest(app.port, { path: `/${token}`, headers: { host: `evil.example:${app.port}` } });
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('answers to its own names', async () => {
    const cookie = await app.login();
    for (const host of [`127.0.0.1:${app.port}`, `localhost:${app.port}`, `LOCALHOST:${app.port}`]) {
      const res = await rawRequest(app.port, { path: '/meetings', headers: { host, cookie } });
      expect(res.status, host).toBe(200);
    }
  });
});

describe('the Origin check (CSRF)', () => {
  it('refuses a cross-origin POST, a POST without Origin and a cross-site fetch', async () => {
    const cookie = await app.login();
    const cases: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: `http://127.0.0.1:${app.port + 1}` },
      { origin: 'null' },
      {},
      { origin: app.base, 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of cases) {
      const res = await fetch(`${app.base}/proposals/prp_x/decline`, { method: 'POST', headers: { cookie, ...headers }, redirect: 'manual' });
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.text()).toContain('must come from a Syntheo page');
    }
  });

  it('lets a same-origin POST through the door', async () => {
    const cookie = await app.login();
    const res = await fetch(`${app.base}/no-such-endpoint`, { method: 'POST', headers: { cookie, origin: app.base, 'sec-fetch-site': 'same-origin' }, redirect: 'manual' });
    expect(res.status).toBe(404);
  });

  it('never exchanges a token on a POST', async () => {
    const res = await fetch(app.openUrl, { method: 'POST', headers: { origin: app.base }, redirect: 'manual' });
    expect(res.status).toBe(405);
    expect(res.headers.get('set-cookie')).toBeNull();
  });
});

describe('headers and markup', () => {
  it('sends a strict CSP and the other protective headers on pages, assets and refusals', async () => {
    const cookie = await app.login();
    for (const [path, headers] of [
      ['/meetings', { cookie }],
      ['/assets/app.js', { cookie }],
      ['/meetings', {}],
    ] as const) {
      const res = await fetch(`${app.base}${path}`, { headers, redirect: 'manual' });
      const csp = res.headers.get('content-security-policy')!;
      expect(csp, path).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('same-origin');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('has no inline script, event handler or style attribute in its pages', async () => {
    const cookie = await app.login();
    const body = await (await fetch(`${app.base}/meetings`, { headers: { cookie } })).text();
    const scripts = [...body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, content] of scripts) {
      expect(attrs).toMatch(/\bsrc="\/assets\/app\.js"/);
      expect(content).toBe('');
    }
    expect(body).not.toMatch(/\son[a-z]+\s*=/i);
    expect(body).not.toMatch(/\sstyle\s*=/i);
  });
});
