import { UsageError, optBool, optString, type CommandSpec } from '../framework.js';

export const commands: CommandSpec[] = [
  {
    name: 'app',
    summary: 'Open the app: read meetings, review proposals, import recordings (a local web page)',
    description: [
      'Serve the app on this machine (http://127.0.0.1:7717 by default) and run the import worker in the same process.',
      'The first line printed is `Syntheo is open at <url>`: the link carries an access token, which the browser trades for a',
      'cookie on first use; nothing else can use the app. Requests from other web pages are refused. Stop it with Ctrl-C.',
    ].join('\n'),
    options: {
      port: { type: 'string', value: 'N', description: 'Port to listen on (default 7717; 0 picks a free one)' },
      host: { type: 'string', value: 'ADDRESS', description: 'Address to listen on (default 127.0.0.1; anything else makes the app reachable from other machines)' },
      'no-open': { type: 'boolean', description: 'Do not open a browser (print the link only)' },
      'no-worker': { type: 'boolean', description: 'Do not run the import worker here (a separate `syntheo-worker` does the imports)' },
    },
    examples: ['syntheo app', 'syntheo app --port 0 --no-open', 'syntheo app --no-worker   # with syntheo-worker running as a service'],
    globals: ['db', 'log-level', 'color', 'no-color'],
    defaultLogLevel: 'info',
    logName: 'syntheo-app',
    async run(ctx) {
      const portText = optString(ctx.options, 'port');
      const port = portText === undefined ? undefined : Number(portText);
      if (port !== undefined && (!/^\d+$/.test(portText!) || port > 65_535)) throw new UsageError(`--port must be a number from 0 to 65535 (got "${portText}").`);
      const host = optString(ctx.options, 'host') ?? '127.0.0.1';
      if (host.trim() === '') throw new UsageError('--host needs an address, e.g. 127.0.0.1.');
      const { runApp, DEFAULT_PORT } = await import('../../app/main.js');
      const dbPath = ctx.location();
      await runApp({
        dbPath,
        host,
        port: port ?? DEFAULT_PORT,
        open: !optBool(ctx.options, 'no-open'),
        worker: !optBool(ctx.options, 'no-worker'),
        logger: ctx.logger,
        // Not ctx.print: the URL must stay intact (it is not terminal text from elsewhere, and has no escapes).
        say: (line) => process.stdout.write(`${line}\n`),
      });
      return { data: null, text: '' };
    },
  },
];
