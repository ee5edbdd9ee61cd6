import { TESTED_TOOLS, missingLine, missingTools, systemToolsRequired } from './system-tools.js';

// vitest globalSetup: one line per missing system tool for the whole run (the files that need it skip
// their tests), or, when tools are required (CI), a failed run before any test starts.

export default function setup(): void {
  const missing = missingTools(TESTED_TOOLS);
  if (missing.length === 0) return;
  if (systemToolsRequired()) {
    throw new Error(missing.map((n) => missingLine(n, true)).join('\n'));
  }
  for (const n of missing) process.stderr.write(`${missingLine(n, false)}\n`);
}
