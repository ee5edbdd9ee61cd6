import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { findProgram } from '../../src/platform/which.js';

// Tests that need a program from the system (not from npm) say so with `needs(...)`: on a machine
// without it they are skipped, and the run prints one line per missing tool naming the Debian
// package (test/support/system-tools.setup.ts). Under CI (`.ci/run` sets SYNTHEO_REQUIRE_SYSTEM_TOOLS=1)
// a missing tool fails the run instead: CI runs everything.

export interface SystemTool {
  /** What the tests need, as a person would say it. */
  what: string;
  /** The Debian packages that provide it. */
  packages: string[];
  present(env?: NodeJS.ProcessEnv): boolean;
}

const lookup = (env: NodeJS.ProcessEnv) => ({ platform: process.platform, env });
const readable = (path: string): boolean => {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
};

export const POCKETSPHINX_MODEL = '/usr/share/pocketsphinx/model/en-us';

export const SYSTEM_TOOLS = {
  ffmpeg: { what: 'ffmpeg', packages: ['ffmpeg'], present: (env = process.env) => findProgram('ffmpeg', lookup(env)) !== null },
  pocketsphinx: {
    what: 'pocketsphinx and its US English model',
    packages: ['pocketsphinx', 'pocketsphinx-en-us'],
    present: (env = process.env) =>
      findProgram('pocketsphinx_continuous', lookup(env)) !== null && ['en-us', 'en-us.lm.bin', 'cmudict-en-us.dict'].every((f) => readable(`${POCKETSPHINX_MODEL}/${f}`)),
  },
  chromium: {
    what: 'Chromium',
    packages: ['chromium'],
    present: (env = process.env) => findProgram('chromium', lookup(env)) !== null || existsSync('/usr/bin/chromium'),
  },
  postgresql: {
    what: 'PostgreSQL (initdb, pg_ctl)',
    packages: ['postgresql', 'postgresql-contrib'],
    present: (env = process.env) => findProgram('initdb', lookup(env)) !== null || debianPostgresBin() !== null,
  },
} satisfies Record<string, SystemTool>;

export type ToolName = keyof typeof SYSTEM_TOOLS;

/** The tools some test file needs: the run reports (or, under CI, requires) these. Add one when a test starts using it. */
export const TESTED_TOOLS: readonly ToolName[] = ['ffmpeg', 'pocketsphinx', 'chromium', 'postgresql'];

/** Debian keeps initdb off the PATH, in /usr/lib/postgresql/<major>/bin. */
export function debianPostgresBin(): string | null {
  try {
    const majors = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
    for (const m of majors) if (existsSync(`/usr/lib/postgresql/${m}/bin/initdb`)) return `/usr/lib/postgresql/${m}/bin`;
  } catch {
    // not installed
  }
  return null;
}

/** CI=true with SYNTHEO_REQUIRE_SYSTEM_TOOLS unset, or SYNTHEO_REQUIRE_SYSTEM_TOOLS=1: a missing tool is a failure. */
export function systemToolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.SYNTHEO_REQUIRE_SYSTEM_TOOLS;
  if (flag !== undefined && flag !== '') return flag !== '0';
  return env.CI === 'true' || env.CI === '1';
}

export function missingTools(names: readonly ToolName[], env: NodeJS.ProcessEnv = process.env): ToolName[] {
  return names.filter((n) => !SYSTEM_TOOLS[n].present(env));
}

/** The one line about a missing tool: what it is and the Debian packages to install. */
export function missingLine(name: ToolName, required: boolean): string {
  const t = SYSTEM_TOOLS[name];
  const what = required ? `${t.what} is required under CI (CI=true or SYNTHEO_REQUIRE_SYSTEM_TOOLS=1) but not found` : `Skipping the tests that need ${t.what} (not found)`;
  return `${what}: sudo apt-get install ${t.packages.join(' ')}`;
}

/**
 * `true` when the tests that need these tools must be skipped (`describe.skipIf(needs('ffmpeg'))`).
 * When tools are required (CI) and one is missing, throws: the file fails, saying what to install.
 */
export function needs(...names: ToolName[]): boolean {
  const unlisted = names.filter((n) => !TESTED_TOOLS.includes(n));
  if (unlisted.length > 0) throw new Error(`Add ${unlisted.join(', ')} to TESTED_TOOLS in test/support/system-tools.ts, so that the run reports it when it is missing.`);
  const missing = missingTools(names);
  if (missing.length === 0) return false;
  if (systemToolsRequired()) {
    throw new Error(missing.map((n) => missingLine(n, true)).join('\n'));
  }
  return true;
}
