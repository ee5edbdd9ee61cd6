import { existsSync, statSync } from 'node:fs';
import { EXIT, optBool, type CommandContext, type CommandSpec } from '../framework.js';
import { paint, plural, relative } from '../text.js';
import { CLEAR_LINE, redrawn } from '../terminal.js';
import { settingViews } from './config.js';
import { CONFIG_KEYS, loadConfig, type Config, type ConfigKey } from '../../config.js';
import { NoDatabaseError, SyntheoError } from '../../errors.js';
import { isPostgresUrl } from '../../db/engine.js';
import { HEARTBEAT_FRESH_MS } from '../../db/model/workers.js';
import type { IntegrityReport, RepairProgress, RepairStep, Store } from '../../db/store.js';
import { findProgram } from '../../platform/which.js';
import { displayUrl } from '../../text/url.js';
import { probe, transcriptionProbePath, type ServerProbe } from '../../http/reachable.js';

type Level = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  level: Level;
  message: string;
  /** What to do about it, when there is something to do. */
  hint?: string;
}

const doctor: CommandSpec = {
  name: 'doctor',
  summary: 'Check the database, the worker and the configured servers',
  description:
    'Check that Syntheo is ready to import recordings: the database and its schema, a worker with a fresh heartbeat,\nthe transcription server (required) and the LLM server reachable within 2 s, ffmpeg for long recordings.\nThe database file is checked too: integrity_check (quick_check above 256 MiB), the schema against the\nmigrations, the search index against the meetings; --repair-search rebuilds a damaged search index first.\nExit 0 when ready, 1 when not, 3 when there is no database. API keys are never printed.',
  options: {
    'repair-search': { type: 'boolean', description: 'First rebuild the search index from the meetings (what to do when the search index is damaged)' },
  },
  examples: ['syntheo doctor', 'syntheo doctor --repair-search', 'syntheo --json doctor | jq \'.data.checks[] | select(.level != "ok")\''],
  async run(ctx) {
    const location = ctx.location();
    // A server's URL is shown without its password; a file, as it is.
    const server = isPostgresUrl(location);
    const checks: Check[] = [];
    const data: Record<string, unknown> = { database: server ? { path: displayUrl(location), exists: null } : { path: location, exists: location === ':memory:' || existsSync(location) } };
    let store: Store;
    try {
      store = await ctx.store({ create: false });
    } catch (error) {
      if (!(error instanceof SyntheoError)) throw error;
      checks.push({ name: 'database', level: 'fail', message: error.message });
      return finish(ctx.colour, data, checks, error instanceof NoDatabaseError ? EXIT.noDatabase : EXIT.failed);
    }
    const path = store.location;
    if (optBool(ctx.options, 'repair-search')) {
      const progress = repairProgress(ctx);
      const repaired = await store.admin.repairSearch(progress.report).finally(progress.end);
      data.repaired = repaired;
      ctx.print(
        `Rebuilt the search index: ${plural(repaired.passages, 'passage')}, ${plural(repaired.meetings, 'meeting title')}, ${plural(repaired.participants, 'participant')}${repaired.recreated.length ? ` (recreated ${repaired.recreated.join(', ')})` : ''}.`,
      );
    }
    const schema = await store.admin.schema();
    // SQLite's whole check reads every page: on a large file, the quick one.
    const full = store.engine !== 'sqlite' || location === ':memory:' || statSync(location).size <= FULL_CHECK_MAX_BYTES;
    const integrity = await store.admin.integrity({ full });
    data.integrity = integrity;
    let counts: Awaited<ReturnType<Store['meetings']['counts']>> | undefined;
    try {
      counts = await store.meetings.counts();
    } catch {
      // A missing table: the schema check below says which.
    }
    data.database = { path, exists: true, schema, counts: counts ?? null };
    checks.push({
      name: 'database',
      level: 'ok',
      message: `${path}: schema ${schema.applied}/${schema.known} migrations (latest ${schema.latestKnown})${
        counts
          ? `; ${plural(counts.meetings, 'meeting')}, ${plural(counts.folders, 'folder')}, ${plural(counts.pending_proposals, 'pending proposal')}, ${plural(counts.active_imports, 'import')} in progress`
          : ''
      }`,
    });
    checks.push(...integrityChecks(integrity));
    // Tables other than the search index's may be missing: the checks below would only repeat that.
    if (!integrity.searchOnly) return finish(ctx.colour, data, checks, EXIT.failed);

    const worker = await store.workers.latest();
    data.worker = worker;
    if (!worker)
      checks.push({ name: 'worker', level: 'fail', message: 'No worker is running (none has a heartbeat in this database).', hint: 'Start it with `syntheo-worker` (or `syntheo worker`) and keep it running.' });
    else
      checks.push({
        name: 'worker',
        level: worker.alive ? 'ok' : 'fail',
        message: `${worker.alive ? 'Alive' : 'Not running'}: last heartbeat ${relative(Math.max(0, worker.heartbeat_age_ms))} (pid ${worker.pid} on ${worker.hostname}, version ${worker.version})`,
        hint: worker.alive ? undefined : `A worker counts as alive for ${HEARTBEAT_FRESH_MS / 1000} s after its heartbeat. Start one with \`syntheo-worker\`.`,
      });

    // Settings are checked one by one, so one bad value does not hide the others.
    const stored = await store.settings.read();
    const views = settingViews(stored);
    const bad: string[] = [];
    for (const v of views) {
      if (v.secret || v.value === null || v.source === 'default') continue;
      try {
        CONFIG_KEYS[v.key as ConfigKey].check(v.value);
      } catch (error) {
        bad.push(`${(error as Error).message} (from ${v.source === 'environment' ? v.env : 'the database'})`);
      }
    }
    let config: Config | undefined;
    if (bad.length) checks.push({ name: 'config', level: 'fail', message: bad.join('\n'), hint: 'Fix it with `syntheo config set KEY VALUE` or the environment variable.' });
    else config = loadConfig(stored);
    data.config = views.map(({ key, value, source, secret }) => ({ key, value: value !== null && key.endsWith('.url') ? displayUrl(value) : value, source, secret }));

    const probes: Promise<void>[] = [];
    if (config) {
      const t = config.transcription;
      if (!t.url)
        checks.push({
          name: 'transcription',
          level: 'fail',
          message: 'No transcription server configured (transcription.url).',
          hint: 'Set one: `syntheo config set transcription.url http://127.0.0.1:8000` (speaches, whisper.cpp whisper-server, OpenAI, Groq ...).',
        });
      else {
        const slot: Check = { name: 'transcription', level: 'ok', message: '' };
        checks.push(slot);
        probes.push(
          probe(t.url, transcriptionProbePath(t.api)).then((p) => {
            data.transcription = { ...p, api: t.api, model: t.model, api_key_set: t.apiKey !== null };
            Object.assign(slot, serverCheck('transcription', p, `${t.api} API, model ${t.model}${t.apiKey ? ', API key set' : ''}`));
          }),
        );
      }
      const l = config.llm;
      if (!l.url)
        checks.push({
          name: 'llm',
          level: 'warn',
          message: 'No LLM server configured (llm.url): imports get a transcript but no summary.',
          hint: 'Set one: `syntheo config set llm.url http://127.0.0.1:11434` and `syntheo config set llm.model MODEL`.',
        });
      else {
        const slot: Check = { name: 'llm', level: 'ok', message: '' };
        checks.push(slot);
        probes.push(
          probe(l.url, 'v1/models').then((p) => {
            data.llm = { ...p, model: l.model, api_key_set: l.apiKey !== null };
            Object.assign(slot, serverCheck('llm', p, [l.model ? `model ${l.model}` : '', l.apiKey ? 'API key set' : ''].filter(Boolean).join(', ')));
            if (p.reachable && !l.model) {
              slot.level = 'warn';
              slot.message += ', but llm.model is not set: summaries are skipped (skipped_no_model).';
              slot.hint = 'Set it: `syntheo config set llm.model MODEL`.';
            }
          }),
        );
      }
    }
    await Promise.all(probes);

    const ffmpeg = findProgram('ffmpeg');
    data.ffmpeg = ffmpeg;
    checks.push(
      ffmpeg
        ? { name: 'ffmpeg', level: 'ok', message: `${ffmpeg} (long recordings are split into chunks)` }
        : { name: 'ffmpeg', level: 'warn', message: 'ffmpeg is not on PATH: recordings longer than transcription.chunk_seconds or larger than transcription.max_upload_mb will fail.', hint: 'Install it (apt install ffmpeg, brew install ffmpeg).' },
    );
    return finish(ctx.colour, data, checks, checks.some((c) => c.level === 'fail') ? EXIT.failed : EXIT.ok);
  },
};

/** A file up to this size gets `integrity_check`; larger ones `quick_check`. */
export const FULL_CHECK_MAX_BYTES = 256 * 1024 * 1024;

/** What a repair's step goes through, for a person. */
const REPAIR_STEPS: Record<RepairStep, (total: number) => string> = {
  transcripts: (n) => `the passages of ${plural(n, 'transcript')}`,
  meetings: (n) => `the filters and title words of ${plural(n, 'meeting')}`,
  counts: () => 'the counts and names',
};

/** A live line redrawn at most this often (ms): a repair tells each of 100,000 transcripts. */
const REDRAW_MS = 100;

/**
 * How a repair goes, told as the imports' wait tells it: on a terminal one line redrawn (the step and how far into it);
 * otherwise a line as each step begins; nothing with --json.
 */
function repairProgress(ctx: CommandContext): { report: RepairProgress; end: () => void } {
  let step: RepairStep | undefined;
  let drawn = 0;
  const report: RepairProgress = (next, done, total) => {
    const starts = next !== step;
    step = next;
    const what = REPAIR_STEPS[next](total);
    if (!ctx.live) {
      if (starts) ctx.print(`Rebuilding the search index: ${what}…`);
      return;
    }
    const now = Date.now();
    if (!starts && done < total && now - drawn < REDRAW_MS) return;
    drawn = now;
    process.stdout.write(redrawn(`Rebuilding the search index: ${what}${total > 0 ? ` (${Math.floor((100 * done) / total)}%)` : ''}`, ctx.colour));
  };
  const end = () => {
    if (ctx.live && step !== undefined) process.stdout.write(CLEAR_LINE);
  };
  return { report, end };
}

const REPAIR_SEARCH = 'Rebuild it with `syntheo doctor --repair-search` (the meetings are not changed).';
const RESTORE_PAGES =
  'Restore the database from a backup. Until then, `syntheo meetings export ID... -o backup.json` saves what can still be read (`syntheo --db new.db load backup.json` restores it).';
const RESTORE_TABLES = 'Restore the database from a backup: a table that is gone took its rows with it, and Syntheo cannot make it again.';

function integrityChecks(r: IntegrityReport): Check[] {
  const out: Check[] = [];
  const list = (items: string[]) => items.slice(0, 10).join('\n') + (items.length > 10 ? `\n... and ${items.length - 10} more` : '');
  out.push(
    r.problems.length === 0
      ? { name: 'integrity', level: 'ok', message: `${r.check}: ok` }
      : { name: 'integrity', level: 'fail', message: `${r.check} found problems:\n${list(r.problems)}`, hint: r.searchOnly ? `They are in the search index. ${REPAIR_SEARCH}` : RESTORE_PAGES },
  );
  out.push(
    r.missing.length === 0
      ? { name: 'schema', level: 'ok', message: 'every table, index and trigger of the migrations is there' }
      : { name: 'schema', level: 'fail', message: `missing from the database:\n${list(r.missing)}`, hint: r.searchOnly ? `They belong to the search index. ${REPAIR_SEARCH}` : RESTORE_TABLES },
  );
  out.push(
    r.search.length === 0
      ? { name: 'search', level: 'ok', message: 'the search index matches the meetings' }
      : { name: 'search', level: 'fail', message: `damaged search index: ${r.search.join(', ')}`, hint: REPAIR_SEARCH },
  );
  return out;
}

function serverCheck(name: string, p: ServerProbe, details: string): Omit<Check, 'name'> {
  if (p.reachable) return { level: 'ok', message: `${p.url} answers (HTTP ${p.status} in ${p.ms} ms)${details ? `; ${details}` : ''}` };
  return {
    level: 'fail',
    message: `${p.url} is unreachable (${p.error}).`,
    hint: `Start the ${name === 'llm' ? 'LLM' : 'transcription'} server, or fix the URL with \`syntheo config set ${name}.url URL\`.`,
  };
}

const MARK: Record<Level, string> = { ok: '✓', warn: '!', fail: '✗' };

function finish(coloured: boolean, data: Record<string, unknown>, checks: Check[], exitCode: number) {
  const c = paint(coloured);
  const colour = { ok: c.green, warn: c.yellow, fail: c.red };
  const ready = exitCode === EXIT.ok;
  const lines = checks.map((k) => {
    const [first, ...rest] = k.message.split('\n');
    const head = `${colour[k.level](MARK[k.level])} ${k.name.padEnd(13)} ${first}`;
    return [head, ...rest.map((r) => `${' '.repeat(16)}${r}`), ...(k.hint ? [`${' '.repeat(16)}${c.dim(k.hint)}`] : [])].join('\n');
  });
  lines.push('', ready ? c.green('Ready.') : c.red('Not ready: fix the ✗ lines above.'));
  return { data: { ready, ...data, checks }, text: lines.join('\n'), exitCode };
}

export const commands: CommandSpec[] = [doctor];
