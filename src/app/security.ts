import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import type { MiddlewareHandler } from 'hono';

// A web server on a laptop is reachable by every page the person visits. Every request must come to
// one of our own addresses (Host: DNS rebinding), carry the session cookie (given only in exchange for
// the token printed on stdout), and, when it changes something, come from our own origin (CSRF).

export interface Access {
  /** In the printed URL; exchanged for the cookie. */
  readonly token: string;
  /** The cookie's value: not the token, so the cookie never grants a URL and the URL never sits in a cookie jar. */
  readonly session: string;
  /** Per port: two apps on one machine (different ports, same host) keep separate cookies. */
  readonly cookieName: string;
  /** Host header values (lower case) that this app answers to. */
  readonly hosts: ReadonlySet<string>;
  /** Origin header values accepted on state-changing requests. */
  readonly origins: ReadonlySet<string>;
  /** Where a person opens it (with the token): the first line on stdout. */
  readonly openUrl: string;
  /** The address without the token. */
  readonly baseUrl: string;
}

const LOOPBACK_NAMES = ['localhost'];

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`.toLowerCase();
}

/** The addresses a server bound to `bindHost` is reachable at, for the Host check. */
export function hostNames(bindHost: string): string[] {
  const h = bindHost.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === '0.0.0.0' || h === '::') {
    const all = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i !== undefined && (h === '::' || i.family === 'IPv4'))
      .map((i) => i!.address);
    return [...new Set([...all, ...LOOPBACK_NAMES])];
  }
  if (h === '127.0.0.1' || h === '::1' || h === 'localhost') return [h === 'localhost' ? '127.0.0.1' : h, ...LOOPBACK_NAMES];
  return [h];
}

export function createAccess(bindHost: string, port: number, token = randomBytes(32).toString('base64url')): Access {
  const names = hostNames(bindHost);
  const hosts = new Set(names.map((n) => hostPort(n, port)));
  const shown = bindHost === '0.0.0.0' || bindHost === '::' ? '127.0.0.1' : names[0]!;
  const baseUrl = `http://${hostPort(shown, port)}`;
  return {
    token,
    session: randomBytes(32).toString('base64url'),
    cookieName: `syntheo_${port}`,
    hosts,
    origins: new Set([...hosts].map((h) => `http://${h}`)),
    baseUrl,
    openUrl: `${baseUrl}/?token=${token}`,
  };
}

/** Compares secrets in time independent of where they differ (hashing first makes the lengths equal). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every answer, refusals included. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  const h = c.res.headers;
  h.set('Content-Security-Policy', CSP);
  h.set('X-Content-Type-Options', 'nosniff');
  // Not no-referrer: with it, Chromium sends `Origin: null` on a same-origin form POST, which the Origin check must refuse.
  h.set('Referrer-Policy', 'same-origin');
  h.set('X-Frame-Options', 'DENY');
  h.set('Cross-Origin-Opener-Policy', 'same-origin');
  h.set('Cross-Origin-Resource-Policy', 'same-origin');
  if (!h.has('Cache-Control')) h.set('Cache-Control', 'no-store');
};

const SAFE_METHODS = new Set(['GET', 'HEAD']);

function cookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function refuse(status: 401 | 403 | 405, text: string): Response {
  return new Response(`${text}\n`, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
}

export function guard(access: Access): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host')?.toLowerCase();
    if (host === undefined || !access.hosts.has(host)) return refuse(403, `Syntheo answers only at ${access.baseUrl} (this request was addressed to another host).`);
    const url = new URL(c.req.url);
    const token = url.searchParams.get('token');
    if (token !== null) {
      if (!SAFE_METHODS.has(c.req.method)) return refuse(405, 'The token is exchanged on a GET request only.');
      if (!sameSecret(token, access.token)) return refuse(401, 'This link is not valid (or is from an earlier run). Open the link printed by `syntheo app`.');
      url.searchParams.delete('token');
      // Relative, so the Location cannot point anywhere else; the clean URL leaves the token out of history and Referer.
      const clean = `${url.pathname}${url.search}`;
      return new Response(null, {
        status: 303,
        headers: { Location: clean, 'Set-Cookie': `${access.cookieName}=${access.session}; HttpOnly; SameSite=Strict; Path=/` },
      });
    }
    if (!sameSecret(cookie(c.req.header('cookie'), access.cookieName), access.session))
      return refuse(401, 'Open Syntheo from the link printed by `syntheo app` (it carries the access token).');
    if (!SAFE_METHODS.has(c.req.method)) {
      const origin = c.req.header('origin');
      const site = c.req.header('sec-fetch-site');
      if (origin === undefined || !access.origins.has(origin.toLowerCase()) || (site !== undefined && site !== 'same-origin'))
        return refuse(403, 'Refused: a request that changes something must come from a Syntheo page.');
    }
    await next();
  };
}
