// The package as a user gets it: `npm pack` from a fresh copy of the sources (its own prepack and
// prepare scripts build dist/), then `npm install <tarball>` into an empty folder, then the installed
// `syntheo` and `syntheo-worker` bins. The tarball is built and installed once for the whole file.
import { execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Compiling better-sqlite3 from source takes minutes on a loaded 2-core machine, so by default its
// install script (prebuild-install) is handed the clone's own addon as a "local prebuild" (same
// version, same Node ABI). SYNTHEO_PACK_COMPILE=1 leaves it to compile as a user's install would.
const COMPILE = process.env.SYNTHEO_PACK_COMPILE === '1';
const NPM_TIMEOUT_MS = (COMPILE ? 10 : 3) * 60_000;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: opts.cwd, env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 60_000, maxBuffer: 32 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stdout, stderr });
    });
  });
}

/** A prebuild-install tarball of the clone's compiled better-sqlite3, named as prebuild-install looks for it. */
async function localPrebuild(dir: string): Promise<string> {
  const pkgDir = join(createRequire(join(ROOT, 'package.json')).resolve('better-sqlite3/package.json'), '..');
  const { version } = createRequire(import.meta.url)(join(pkgDir, 'package.json')) as { version: string };
  mkdirSync(dir);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const tar = await run('tar', ['-czf', join(dir, name), '-C', pkgDir, 'build/Release/better_sqlite3.node'], { cwd: dir });
  if (tar.code !== 0) throw new Error(`could not make the local prebuild: ${tar.stderr}`);
  return dir;
}

let work: string;
let app: string;
let packed: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };
let skipReason: string | null = null;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'syntheo-pack-'));
  // A fresh copy of what a clone holds (no stale dist/), sharing the clone's node_modules for the build.
  const stage = join(work, 'stage');
  mkdirSync(stage);
  for (const entry of ['package.json', 'README.md', 'tsconfig.json', 'drizzle', 'src', 'bench', 'tools']) {
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(stage, entry), { recursive: true, filter: (p) => !p.includes('/.data') });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'), 'dir');
  const out = join(work, 'tarball');
  mkdirSync(out);
  const pack = await run('npm', ['pack', '--json', '--pack-destination', out], { cwd: stage, timeoutMs: 5 * 60_000 });
  if (pack.code !== 0) throw new Error(`npm pack failed (${pack.code}): ${pack.stderr.slice(-2000)}`);
  packed = (JSON.parse(pack.stdout) as (typeof packed)[])[0]!;

  app = join(work, 'app');
  mkdirSync(app);
  // better-sqlite3 builds its addon in an install script; npm 11 warns about scripts not in allowScripts.
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, allowScripts: { 'better-sqlite3': true } }));
  const installEnv: NodeJS.ProcessEnv = { ...process.env };
  if (!COMPILE) installEnv.npm_config_better_sqlite3_local_prebuilds = await localPrebuild(join(work, 'prebuilds'));
  const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(out, packed.filename)], { cwd: app, env: installEnv, timeoutMs: NPM_TIMEOUT_MS });
  if (install.code !== 0) {
    const offline = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|ENOTCACHED/.test(install.stderr);
    if (!offline || process.env.CI === 'true') throw new Error(`npm install <tarball> failed (${install.code}): ${install.stderr.slice(-3000)}`);
    skipReason = 'npm install <tarball> needs the npm registry, which is unreachable here (the test runs when CI=true)';
    process.stderr.write(`test/packaging/pack.test.ts skipped: ${skipReason}\n`);
  }
  const home = join(work, 'home');
  mkdirSync(home);
  env = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, 'data'), TMPDIR: tmpdir() };
}, NPM_TIMEOUT_MS + 6 * 60_000);

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

const bin = (name: string): string => join(app, 'node_modules', '.bin', name);

describe('npm pack', () => {
  it('ships the built product and the migrations, no tests, benchmarks, tools or sources', () => {
    const paths = packed.files.map((f) => f.path).sort();
    expect(paths).toContain('dist/src/cli/main.js');
    expect(paths).toContain('dist/src/cli/worker-bin.js');
    expect(paths).toContain('drizzle/0000_init.sql');
    expect(paths).toContain('drizzle/meta/_journal.json');
    const unwanted = paths.filter((p) => /^(test|bench|tools|src|dist\/(test|bench|tools)|dist\/src\/dev)\/|\.ts$|\.map$|^drizzle\.config/.test(p));
    expect(unwanted).toEqual([]);
  });
});

describe('the tarball installed in an empty folder', () => {
  it('gives `syntheo demo` a database it fills, and `syntheo meetings list` reads it', async (ctx) => {
    if (skipReason !== null) return ctx.skip();
    const demo = await run(bin('syntheo'), ['demo'], { cwd: app, env });
    expect(demo.stderr).not.toMatch(/Error|Cannot find/);
    expect(demo.code).toBe(0);
    const list = await run(bin('syntheo'), ['--json', 'meetings', 'list'], { cwd: app, env });
    expect(list.code).toBe(0);
    const body = JSON.parse(list.stdout) as { data: { meetings?: unknown[] } | unknown[] };
    const meetings = Array.isArray(body.data) ? body.data : (body.data.meetings ?? []);
    expect(meetings.length).toBeGreaterThan(0);
    expect(existsSync(join(env.XDG_DATA_HOME!, 'syntheo', 'syntheo.db'))).toBe(true);
  });

  it('answers initialize and a tool call over stdio from `syntheo mcp`', async (ctx) => {
    if (skipReason !== null) return ctx.skip();
    const db = join(work, 'mcp.db');
    const transport = new StdioClientTransport({ command: bin('syntheo'), args: ['mcp', '--db', db], env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'pack-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe('syntheo');
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('list_meetings');
      const result = await client.callTool({ name: 'list_meetings', arguments: {} });
      expect(result.isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('prints `syntheo-worker --help`', async (ctx) => {
    if (skipReason !== null) return ctx.skip();
    const help = await run(bin('syntheo-worker'), ['--help'], { cwd: app, env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: syntheo[- ]worker/m);
  });

  it('says `syntheo studio` is a developer command from a clone, and has no `syntheo dev`', async (ctx) => {
    if (skipReason !== null) return ctx.skip();
    const studio = await run(bin('syntheo'), ['studio'], { cwd: app, env });
    expect(studio.code).toBe(1);
    expect(studio.stderr).toContain('syntheo studio is a developer command: it runs from a clone of Syntheo');
    const dev = await run(bin('syntheo'), ['dev', 'transcribe-server'], { cwd: app, env });
    expect(dev.code).toBe(64);
    expect(dev.stderr).toContain('Unknown command "dev"');
  });

  it('installs no drizzle-kit, test or browser tool; the server and upload parser of the app are there', (ctx) => {
    if (skipReason !== null) return ctx.skip();
    const installed = readdirSync(join(app, 'node_modules'));
    expect(installed.filter((n) => ['drizzle-kit', 'esbuild', 'vitest', 'typescript', 'playwright-core', 'axe-core', 'eslint'].includes(n))).toEqual([]);
    // `syntheo app` streams uploads through busboy and serves with Hono.
    for (const dep of [['@fastify', 'busboy'], ['hono'], ['@hono', 'node-server']]) expect(existsSync(join(app, 'node_modules', ...dep)), dep.join('/')).toBe(true);
  });

  it('serves `syntheo app` from the tarball (its server and pages load from the installed dependencies)', async (ctx) => {
    if (skipReason !== null) return ctx.skip();
    const child = spawn(bin('syntheo'), ['app', '--port', '0', '--no-open', '--no-worker'], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no URL printed; stdout: ${out}`)), 30_000);
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          const m = /^Syntheo is open at (\S+)$/m.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        child.on('exit', (code) => reject(new Error(`syntheo app exited (${code}) before printing its URL`)));
      });
      // The token is exchanged for a cookie, then the meetings page is served.
      const first = await fetch(url, { redirect: 'manual' });
      const cookie = first.headers.get('set-cookie')?.split(';')[0];
      expect(cookie).toBeTruthy();
      const page = await fetch(new URL('/meetings', url), { headers: { cookie: cookie! } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
