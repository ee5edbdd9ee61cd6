import type { CommandSpec } from '../framework.js';

export const commands: CommandSpec[] = [
  {
    name: 'worker',
    summary: 'Run the import worker (same as syntheo-worker)',
    description:
      'Run the import worker: the "app open" side of Syntheo. It claims queued recording imports, transcribes them\nwith the configured transcription server and summarises them with the configured LLM. Stop it with Ctrl-C\nor SIGTERM: in-flight jobs get a grace period.',
    options: {
      concurrency: { type: 'string', value: 'N', description: 'Jobs in flight (default: worker.concurrency, else 2)' },
    },
    examples: ['syntheo worker', 'SYNTHEO_TRANSCRIPTION_URL=http://127.0.0.1:8000 syntheo worker --log-level info'],
    async run(ctx) {
      const { runWorker } = await import('../../worker/main.js');
      const concurrency = ctx.options.concurrency;
      return runWorker({ dbPath: ctx.dbPath(), logger: ctx.logger, concurrency: typeof concurrency === 'string' ? Number(concurrency) : undefined });
    },
  },
];
