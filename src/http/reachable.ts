import { displayUrl } from '../text/url.js';

// Is a configured server there? `syntheo doctor` and the app's "Test connection" ask the same way.

/** A configured server that does not answer within this is reported unreachable. */
export const REACHABLE_TIMEOUT_MS = 2_000;

export interface ServerProbe {
  url: string;
  probe: string;
  reachable: boolean;
  status?: number;
  error?: string;
  ms: number;
}

/** Any HTTP answer (even 401 or 404) means the server is there; the API key is not sent. */
export async function probe(base: string, path: string): Promise<ServerProbe> {
  const url = new URL(path, base.endsWith('/') ? base : `${base}/`).toString();
  const t0 = performance.now();
  // undici, as the worker's clients: global fetch refuses some ports (9, 6000 ...) that a local server may use.
  const { request } = await import('undici');
  try {
    const response = await request(url, { method: 'GET', signal: AbortSignal.timeout(REACHABLE_TIMEOUT_MS) });
    await response.body.dump().catch(() => undefined);
    return { url: displayUrl(base), probe: displayUrl(url), reachable: true, status: response.statusCode, ms: Math.round(performance.now() - t0) };
  } catch (error) {
    const e = error as Error & { code?: string };
    const why = e.name === 'TimeoutError' || e.name === 'AbortError' ? `no answer within ${REACHABLE_TIMEOUT_MS / 1000} s` : (e.code ?? e.message);
    return { url: displayUrl(base), probe: displayUrl(url), reachable: false, error: why, ms: Math.round(performance.now() - t0) };
  }
}

/** The path doctor probes on each kind of server. */
export function transcriptionProbePath(api: string): string {
  return api === 'whisper.cpp' ? '' : 'v1/models';
}
