import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { UsageError, optInt, optString, type CommandSpec } from '../framework.js';
import { SyntheoError } from '../../errors.js';
import { PACKAGE_ROOT } from '../../package.js';
import { isPostgresUrl } from '../../db/engine.js';

// Studio is a developer command: drizzle-kit (tens of MB, esbuild included) is a devDependency and
// drizzle.config.ts is not packed, so an installed Syntheo says where to run it instead.
const CLONE_ONLY =
  'syntheo studio is a developer command: it runs from a clone of Syntheo (git clone, then npm ci), ' +
  'because the installed package leaves out drizzle-kit and drizzle.config.ts. ' +
  'From a clone: npx syntheo studio --db <this database>.';

/** drizzle-kit's bin, wherever npm put the package (nested or hoisted). Its exports hide package.json: walk up from its entry. */
function drizzleKitBin(): string {
  const require = createRequire(join(PACKAGE_ROOT, 'package.json'));
  let dir: string;
  try {
    dir = dirname(require.resolve('drizzle-kit'));
  } catch {
    throw new SyntheoError('unavailable', CLONE_ONLY);
  }
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; bin?: string | Record<string, string> };
      if (pkg.name === 'drizzle-kit' && pkg.bin) return join(dir, typeof pkg.bin === 'string' ? pkg.bin : pkg.bin['drizzle-kit']!);
    }
    const parent = dirname(dir);
    if (parent === dir) throw new SyntheoError('unavailable', 'drizzle-kit is installed incompletely (its bin was not found). Run npm ci in the clone.');
    dir = parent;
  }
}

const studio: CommandSpec = {
  name: 'studio',
  summary: 'Browse the database with Drizzle Studio (developer command, from a clone)',
  description:
    "Developer command, from a clone of Syntheo (the installed package leaves drizzle-kit out).\nRun `drizzle-kit studio` on the same database file as the other commands, to browse and edit its tables.\nListens on 127.0.0.1 unless --host says otherwise (meetings are private). Stop it with Ctrl-C.\nEdits made in Studio bypass Syntheo's checks: prefer the syntheo commands for changes.",
  options: {
    port: { type: 'string', value: 'N', description: 'Port for Studio (default 4983)' },
    host: { type: 'string', value: 'HOST', description: 'Address to listen on (default 127.0.0.1)' },
  },
  examples: ['syntheo studio', 'syntheo studio --db ~/meetings.db --port 5000'],
  // Studio's own output is on the terminal; there is no result for --json.
  globals: ['db', 'log-level'],
  async run(ctx) {
    const port = optInt(ctx.options, 'port');
    if (port !== undefined && (port < 1 || port > 65_535)) throw new UsageError(`--port must be from 1 to 65535, got ${port}.`);
    const host = optString(ctx.options, 'host') ?? '127.0.0.1';
    const config = join(PACKAGE_ROOT, 'drizzle.config.ts');
    if (!existsSync(config)) throw new SyntheoError('unavailable', CLONE_ONLY);
    const bin = drizzleKitBin();
    const path = ctx.location();
    if (isPostgresUrl(path)) throw new SyntheoError('unavailable', 'syntheo studio browses an SQLite database file; for PostgreSQL, use a PostgreSQL client (psql, pgAdmin).');
    // Checks the file is ours and current (exit 3 when missing, 1 when foreign) before Studio touches it,
    // and closes it again: Studio opens it itself.
    await (await ctx.store({ create: false })).close();
    const args = [bin, 'studio', '--config', config, '--host', host];
    if (port !== undefined) args.push('--port', String(port));
    ctx.logger.info({ path, host, port }, 'starting drizzle-kit studio');
    const child = spawn(process.execPath, args, { cwd: PACKAGE_ROOT, env: { ...process.env, SYNTHEO_DB: path }, stdio: 'inherit' });
    // Ctrl-C reaches the child through the terminal too; forwarding covers `kill -INT` of this process alone.
    const forward = (signal: NodeJS.Signals) => () => {
      if (child.exitCode === null) child.kill(signal);
    };
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    try {
      const code = await new Promise<number>((resolvePromise, reject) => {
        child.once('error', reject);
        child.once('exit', (status, signal) => resolvePromise(status ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1)));
      });
      return { data: { database: path, exit_code: code }, text: '', exitCode: code };
    } finally {
      process.removeListener('SIGINT', onInt);
      process.removeListener('SIGTERM', onTerm);
    }
  },
};

export const commands: CommandSpec[] = [studio];
