import { UsageError, optInt, optString, type CommandSpec } from '../framework.js';

export const commands: CommandSpec[] = [
  {
    name: 'worker',
    summary: 'Run the import worker (same as syntheo-worker)',
    description: [
      'Run the import worker: the "app open" side of Syntheo. It claims queued recording imports, transcribes them',
      'with the configured transcription server and summarises them with the configured LLM (see `syntheo config list`).',
      'Settings are read again for every import, so `syntheo config set` needs no restart (except worker.concurrency).',
      'Stop it with Ctrl-C or SIGTERM: imports in flight get a grace period (default 30 s), then are marked',
      'interrupted; a second Ctrl-C ends the grace period at once. Logs (one line per import) go to stderr.',
    ].join('\n'),
    options: {
      concurrency: { type: 'string', value: 'N', description: 'Imports in flight (default: worker.concurrency, else 2)' },
      'grace-seconds': { type: 'string', value: 'S', description: 'Grace period for imports in flight when stopping (default 30, or $SYNTHEO_WORKER_GRACE_MS)' },
    },
    examples: [
      'syntheo worker',
      'syntheo-worker --concurrency 1',
      'SYNTHEO_TRANSCRIPTION_URL=http://127.0.0.1:8178 SYNTHEO_LLM_URL=http://127.0.0.1:11434 SYNTHEO_LLM_MODEL=llama3.2 syntheo worker',
      'systemctl --user enable --now syntheo-worker   # see contrib/systemd/syntheo-worker.service',
    ],
    // A daemon: --json has nothing to print, and one info line per import is its normal output.
    globals: ['db', 'log-level', 'color', 'no-color'],
    defaultLogLevel: 'info',
    logName: 'syntheo-worker',
    async run(ctx) {
      const concurrency = optString(ctx.options, 'concurrency');
      const grace = optInt(ctx.options, 'grace-seconds');
      if (grace !== undefined && grace < 0) throw new UsageError('--grace-seconds must be 0 or more.');
      const { runWorker } = await import('../../worker/main.js');
      const logger = ctx.logger;
      await runWorker({
        dbPath: ctx.location(),
        logger,
        // Validated with the other settings, so a bad value is reported as worker.concurrency.
        concurrency,
        graceMs: grace === undefined ? undefined : grace * 1000,
      });
    },
  },
];
