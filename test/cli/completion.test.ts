// `syntheo completion bash|zsh|fish`: scripts generated from the command definitions, driven in a real bash.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from './cli.js';
import { tempDir } from '../support/db.js';

let tmp: ReturnType<typeof tempDir>;
let script: string;
beforeAll(async () => {
  tmp = tempDir();
  const r = await run(['completion', 'bash']);
  expect(r.code).toBe(0);
  script = join(tmp.dir, 'syntheo.bash');
  writeFileSync(script, r.stdout);
});
afterAll(() => tmp.cleanup());

/** What bash offers after the given words (the last one being completed), through the generated function. */
function complete(...words: string[]): string[] {
  const line = `source ${JSON.stringify(script)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _syntheo; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', line], { encoding: 'utf8', cwd: tmp.dir });
  expect(r.stderr).toBe('');
  return r.stdout.split('\n').filter(Boolean);
}

describe('bash completion', () => {
  it('is a script bash accepts', () => {
    const r = spawnSync('bash', ['-n', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });

  it('completes commands, verbs and options from the definitions', () => {
    expect(complete('syntheo', 'mee')).toEqual(['meetings']);
    expect(complete('syntheo', 'meetings', 'l')).toEqual(['list']);
    expect(complete('syntheo', 'proposals', '')).toEqual(['list', 'show', 'apply', 'decline']);
    expect(complete('syntheo', '--db', 'x.db', 'meetings', 'list', '--li')).toEqual(['--limit']);
    expect(complete('syntheo', 'proposals', 'apply', '--f')).toEqual(['--force']);
    expect(complete('syntheo', 'help', 'imports', '')).toEqual(['add', 'show', 'list']);
    expect(complete('syntheo', '--log-level', 'd')).toEqual(['debug']);
    // Per command: mcp has no --json.
    expect(complete('syntheo', 'mcp', '--j')).toEqual([]);
  });
});

describe('zsh and fish', () => {
  it('zsh wraps the same function through bashcompinit; fish lists verbs per group', async () => {
    const zsh = await run(['completion', 'zsh']);
    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toMatch(/^#compdef syntheo/);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(zsh.stdout).toContain('complete -o default -F _syntheo syntheo');
    const fish = await run(['completion', 'fish']);
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain("complete -c syntheo -n '__fish_seen_subcommand_from meetings; and not __fish_seen_subcommand_from list get transcript history export' -a list");
    expect(fish.stdout).toContain("complete -c syntheo -n '__fish_seen_subcommand_from meetings; and __fish_seen_subcommand_from list' -l limit -x");
  });

  it('an unknown shell is a usage error', async () => {
    const r = await run(['completion', 'tcsh']);
    expect(r.code).toBe(64);
    expect(r.stderr).toBe('syntheo: Unknown shell "tcsh": use one of bash, zsh, fish.\n');
  });
});
