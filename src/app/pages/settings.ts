import type { Context } from 'hono';
import { CONFIG_KEYS, SECRET_ENV, checkSetting, effectiveSettings, loadConfig, maskUrlPassword, type ConfigKey } from '../../config.js';
import { isSyntheoError } from '../../errors.js';
import type { Store } from '../../db/store.js';
import { probe, transcriptionProbePath, type ServerProbe } from '../../http/reachable.js';
import { html, type Html } from '../html.js';
import { page, type Notice } from '../layout.js';

// The servers the worker uses: stored with the same checks as `syntheo config set`, tested with the
// same probe as `syntheo doctor`. API keys come from the environment only: shown as set or not.

const EDITABLE = ['transcription.url', 'transcription.model', 'transcription.api', 'llm.url', 'llm.model'] as const satisfies readonly ConfigKey[];

const LABELS: Record<(typeof EDITABLE)[number], string> = {
  'transcription.url': 'Transcription server URL',
  'transcription.model': 'Transcription model',
  'transcription.api': 'Transcription API (openai or whisper.cpp)',
  'llm.url': 'LLM server URL',
  'llm.model': 'LLM model',
};

export async function settingsPage(c: Context, store: Store, env: NodeJS.ProcessEnv, notice: Notice | null = null, tests: Html | null = null, status: 200 | 400 = 200): Promise<Response> {
  const stored = await store.settings.read();
  const effective = effectiveSettings(stored, env);
  const body = html`<form method="post" action="/settings">
<table>
<caption class="skip">Servers</caption>
<thead><tr><th scope="col">Setting</th><th scope="col">Value</th><th scope="col">From</th></tr></thead>
<tbody>
${EDITABLE.map((key) => {
  const e = effective[key];
  const fromEnv = e?.from === 'environment';
  const value = e?.value ?? '';
  return html`<tr><td><label for="${key}">${LABELS[key]}</label><div class="muted">${CONFIG_KEYS[key].description}</div></td>
<td><input type="text" id="${key}" name="${key}" value="${key.endsWith('.url') ? maskUrlPassword(value) : value}" placeholder="${CONFIG_KEYS[key].default}"${fromEnv ? html` readonly aria-describedby="${key}-env"` : ''}></td>
<td>${fromEnv ? html`<span id="${key}-env">environment (${CONFIG_KEYS[key].env}): change it there</span>` : e ? 'database' : 'default'}</td></tr>`;
})}
${Object.entries(SECRET_ENV).map(([key, name]) => {
  const set = env[name] !== undefined && env[name] !== '';
  return html`<tr><td>${key}</td><td>${set ? 'set (hidden)' : 'not set'}</td><td>environment only (${name})</td></tr>`;
})}
</tbody>
</table>
<p><button type="submit" class="primary">Save</button> <span class="muted">An empty field removes the setting. The worker reads the settings again for each import.</span></p>
</form>
<form method="post" action="/settings/test"><p><button type="submit">Test connection</button></p></form>
${tests ?? ''}`;
  return c.html(page({ title: 'Settings', section: 'settings', body, notice }).value, status);
}

export async function saveSettings(c: Context, store: Store, env: NodeJS.ProcessEnv): Promise<Response> {
  const form = await c.req.parseBody();
  const stored = await store.settings.read();
  const effective = effectiveSettings(stored, env);
  const changes: [ConfigKey, string | null][] = [];
  for (const key of EDITABLE) {
    const raw = form[key];
    if (typeof raw !== 'string' || effective[key]?.from === 'environment') continue;
    const value = raw.trim();
    if (value === (stored[key] ?? '')) continue;
    if (value === '') changes.push([key, null]);
    else {
      try {
        checkSetting(key, value);
      } catch (error) {
        if (!isSyntheoError(error)) throw error;
        return settingsPage(c, store, env, { level: 'bad', text: `Nothing saved: ${error.message}` }, null, 400);
      }
      changes.push([key, value]);
    }
  }
  for (const [key, value] of changes) {
    if (value === null) await store.settings.delete(key);
    else await store.settings.write(key, value);
  }
  return c.redirect(`/settings?saved=${changes.length}`, 303);
}

/** The checks `syntheo doctor` makes of the servers: configured, valid, answering within 2 s. */
export async function testSettings(c: Context, store: Store, env: NodeJS.ProcessEnv): Promise<Response> {
  const rows: { name: string; ok: boolean; text: string }[] = [];
  try {
    const config = loadConfig(await store.settings.read(), env);
    const said = (p: ServerProbe) => (p.reachable ? `${p.url} answers (HTTP ${p.status} in ${p.ms} ms)` : `${p.url} is unreachable (${p.error}).`);
    const t = config.transcription;
    const l = config.llm;
    const [tp, lp] = await Promise.all([t.url ? probe(t.url, transcriptionProbePath(t.api)) : null, l.url ? probe(l.url, 'v1/models') : null]);
    rows.push(tp ? { name: 'Transcription', ok: tp.reachable, text: said(tp) } : { name: 'Transcription', ok: false, text: 'No transcription server configured: imports fail until one is.' });
    rows.push(
      lp
        ? { name: 'LLM', ok: lp.reachable && l.model !== null, text: said(lp) + (lp.reachable && !l.model ? ' But no LLM model is set: summaries are skipped.' : '') }
        : { name: 'LLM', ok: false, text: 'No LLM server configured: imports get a transcript but no summary.' },
    );
  } catch (error) {
    if (!isSyntheoError(error)) throw error;
    rows.push({ name: 'Settings', ok: false, text: error.message });
  }
  const worker = await store.workers.latest();
  rows.push({ name: 'Worker', ok: worker?.alive === true, text: worker?.alive ? `Running (pid ${worker.pid} on ${worker.hostname})` : 'No import worker is running.' });
  const tests = html`<h2>Connection test</h2><ul class="checks" aria-live="polite">${rows.map((r) => html`<li><span class="badge ${r.ok ? 'done' : 'failed'}">${r.ok ? 'ok' : 'problem'}</span> <strong>${r.name}</strong>: ${r.text}</li>`)}</ul>`;
  return settingsPage(c, store, env, null, tests);
}

export const SAVED = (n: number): Notice => ({ level: 'ok', text: n === 0 ? 'Nothing changed.' : `Saved ${n} setting${n === 1 ? '' : 's'}.` });
