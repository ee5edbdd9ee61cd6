import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installed package's root (holds package.json and drizzle/), found from this file whether it runs from src/ or dist/src/. */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'drizzle'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('Syntheo is installed incompletely: package.json and drizzle/ were not found.');
    dir = parent;
  }
}

export const PACKAGE_ROOT = findRoot();
export const MIGRATIONS_DIR = join(PACKAGE_ROOT, 'drizzle');

let version: string | undefined;
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  return version;
}
