import { fileURLToPath } from 'node:url';

/** How to start this installation's CLI: the running Node and dist/src/cli/main.js, both absolute. */
export interface Installation {
  node: string;
  script: string;
}

export function currentInstallation(): Installation {
  // From dist/src/platform/ (or src/platform/ under vitest) to the CLI entry beside it.
  return { node: process.execPath, script: fileURLToPath(new URL('../cli/main.js', import.meta.url)) };
}
