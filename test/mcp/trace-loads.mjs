// Preloaded into `syntheo mcp` by test/mcp/loading.test.ts (NODE_OPTIONS=--import this file): appends
// every module the process loads to $TRACE_LOADS_FILE, ES modules as they resolve (a loader hook) and
// CommonJS ones (better-sqlite3 comes through createRequire) from require's cache at exit.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  const out = process.env.TRACE_LOADS_FILE;
  register(import.meta.url, { data: { out } });
  process.on('exit', () => {
    appendFileSync(out, Object.keys(createRequire(import.meta.url).cache).map((path) => `cjs ${path}\n`).join(''));
  });
}

let file;
export function initialize(data) {
  file = data.out;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(file, `esm ${resolved.url}\n`);
  return resolved;
}
