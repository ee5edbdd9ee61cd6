import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../support/worker-process.js';

// Synchronous code that used to take minutes (quadratic parsing, cubic matching) cannot be timed out
// inside the test process. Run it in a child node on the built dist/ instead, with a bound far above
// what it needs (milliseconds) and far below what it needed before the fix.

const DIST = join(ROOT, 'dist', 'src');

/**
 * Runs `body` (an async ES module body; `load(path)` imports a module of dist/src, e.g.
 * 'worker/clients/llm.js') and returns the JSON it passed to `done(value)`, or throws saying it did
 * not finish within `boundMs`.
 */
export function runBuilt(body: string, boundMs = 60_000): unknown {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`npm run build\` before these tests.`);
  const prelude = `const load = (p) => import(${JSON.stringify(pathToFileURL(DIST).href)} + '/' + p); const done = (v) => process.stdout.write(JSON.stringify(v));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', `${prelude}\n${body}`], { timeout: boundMs, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (child.error !== undefined || child.signal !== null) throw new Error(`did not finish within ${boundMs / 1000} s (${child.error?.message ?? child.signal})`);
  if (child.status !== 0) throw new Error(`exited with ${child.status}: ${child.stderr}`);
  return JSON.parse(child.stdout) as unknown;
}
