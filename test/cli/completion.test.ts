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

const has = (shell: string) => spawnSync(shell, ['--version'], { stdio: 'ignore' }).status === 0;
const HAS_ZSH = has('zsh');
const HAS_FISH = has('fish');
if (!HAS_ZSH || !HAS_FISH) console.warn(`completion tests in a real shell skipped: ${[HAS_ZSH ? '' : 'zsh', HAS_FISH ? '' : 'fish'].filter(Boolean).join(' and ')} missing (apt install zsh fish)`);

describe.skipIf(!HAS_ZSH)('zsh completion in zsh', () => {
  it('parses, and the function offers the verbs of a group (as bashcompinit calls it, in sh emulation)', async () => {
    const file = join(tmp.dir, '_syntheo');
    writeFileSync(file, (await run(['completion', 'zsh'])).stdout);
    expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' }).status).toBe(0);
    const r = spawnSync('zsh', ['-fc', `source ${JSON.stringify(file)}; COMP_WORDS=(syntheo imports s); COMP_CWORD=2; emulate sh -c _syntheo; print -l -- $COMPREPLY`], { encoding: 'utf8' });
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(['add', 'show', 'list']);
  });
});

describe.skipIf(!HAS_FISH)('fish completion in fish', () => {
  it('parses, and completes a verb and an option', async () => {
    const file = join(tmp.dir, 'syntheo.fish');
    writeFileSync(file, (await run(['completion', 'fish'])).stdout);
    expect(spawnSync('fish', ['--no-execute', file]).status).toBe(0);
    const r = spawnSync('fish', ['--no-config', '-c', `source ${JSON.stringify(file)}; complete -C 'syntheo meetings tr'; complete -C 'syntheo proposals apply --fo'`], { encoding: 'utf8' });
    expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0])).toEqual(['transcript', '--force']);
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
