import { UnavailableError } from '../../errors.js';
import { UsageError, optInt, optString, type CommandSpec } from '../framework.js';

// Tools for trying Syntheo out and for development; not needed in normal use.

export const commands: CommandSpec[] = [
  {
    name: 'dev transcribe-server',
    summary: 'Run a small OpenAI-compatible transcription server over Debian pocketsphinx (for trying imports out)',
    description: [
      'Run an OpenAI-compatible speech-to-text server on this machine: POST /v1/audio/transcriptions answers json,',
      'text and verbose_json with word timestamps, recognised by pocketsphinx (English only; an old recogniser,',
      'good enough to try imports end to end, not for real meetings). Needs: apt install pocketsphinx',
      'pocketsphinx-en-us ffmpeg. Prints its URL on stdout; stop it with Ctrl-C.',
    ].join('\n'),
    options: {
      port: { type: 'string', value: 'N', description: 'Port (default 8178; 0 picks a free one)' },
      host: { type: 'string', value: 'H', description: 'Address to listen on (default 127.0.0.1)' },
      'max-upload-mb': { type: 'string', value: 'MB', description: 'Largest upload accepted; bigger ones get HTTP 413 (default 512)' },
      concurrency: { type: 'string', value: 'N', description: 'Recognitions at once (default 1)' },
    },
    examples: [
      'syntheo dev transcribe-server',
      'syntheo config set transcription.url http://127.0.0.1:8178 && syntheo config set transcription.model pocketsphinx-en-us',
    ],
    globals: ['log-level', 'color', 'no-color'],
    defaultLogLevel: 'info',
    logName: 'transcribe-server',
    async run(ctx) {
      const port = optInt(ctx.options, 'port') ?? 8178;
      const concurrency = optInt(ctx.options, 'concurrency') ?? 1;
      const maxMb = Number(optString(ctx.options, 'max-upload-mb') ?? '512');
      if (port < 0 || port > 65535) throw new UsageError(`--port must be 0-65535, got ${port}.`);
      if (concurrency < 1) throw new UsageError(`--concurrency must be 1 or more, got ${concurrency}.`);
      if (!(maxMb > 0)) throw new UsageError('--max-upload-mb must be a positive number.');
      const { startTranscribeServer } = await import('../../dev/transcribe-server.js');
      const logger = ctx.logger;
      let server;
      try {
        server = await startTranscribeServer({ port, host: optString(ctx.options, 'host') ?? '127.0.0.1', maxUploadBytes: Math.round(maxMb * 1024 * 1024), concurrency, logger });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE') throw new UnavailableError(`Port ${port} is in use. Pick another with --port (and point transcription.url at it).`);
        // Missing pocketsphinx/ffmpeg: the message names the apt packages.
        throw new UnavailableError(error instanceof Error ? error.message : String(error));
      }
      process.stdout.write(`${server.url}\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      await server.close();
    },
  },
];
