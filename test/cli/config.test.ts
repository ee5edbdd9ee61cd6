import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { dbIn, run, runJson } from './cli.js';
import { openTestDb, tempDir } from '../support/db.js';
import { readSettings } from '../../src/db/queries/settings.js';

let db: ReturnType<typeof openTestDb>;
beforeAll(() => {
  db = openTestDb();
});
afterAll(() => db.cleanup());

describe('config', () => {
  it('set, get, list and unset a setting', async () => {
    const set = await run(['--db', db.path, 'config', 'set', 'transcription.url', 'http://127.0.0.1:8000']);
    expect(set.code).toBe(0);
    expect(set.stdout).toBe(`transcription.url = http://127.0.0.1:8000 (stored in ${db.path})\n`);
    expect(readSettings(db.sqlite)['transcription.url']).toBe('http://127.0.0.1:8000');

    const get = await run(['--db', db.path, 'config', 'get', 'transcription.url']);
    expect(get.stdout).toBe('http://127.0.0.1:8000\n');

    const list = await run(['--db', db.path, 'config', 'list']);
    expect(list.stdout).toMatch(/^KEY\s+VALUE\s+SOURCE$/m);
    expect(list.stdout).toMatch(/^transcription\.url\s+http:\/\/127\.0\.0\.1:8000\s+database$/m);
    expect(list.stdout).toMatch(/^transcription\.model\s+whisper-1\s+default$/m);
    expect(list.stdout).toMatch(/^llm\.model\s+—\s+not set$/m);

    const unset = await run(['--db', db.path, 'config', 'unset', 'transcription.url']);
    expect(unset.stdout).toBe('Removed transcription.url from the database; it is now not set.\n');
    expect(readSettings(db.sqlite)).toEqual({});
    const again = await run(['--db', db.path, 'config', 'unset', 'transcription.url']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('transcription.url was not stored in the database; it is now not set.\n');
  });

  it('get of an unset setting exits 2; a default is a value; dependent defaults follow transcription.api', async () => {
    const missing = await run(['--db', db.path, 'config', 'get', 'llm.model']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('syntheo: llm.model is not set. Set it with `syntheo config set llm.model VALUE` or the environment variable SYNTHEO_LLM_MODEL.\n');
    expect((await run(['--db', db.path, 'config', 'get', 'worker.concurrency'])).stdout).toBe('2\n');
    expect((await run(['--db', db.path, 'config', 'get', 'transcription.chunk_seconds'])).stdout).toBe('600\n');
    await run(['--db', db.path, 'config', 'set', 'transcription.api', 'whisper.cpp']);
    expect((await run(['--db', db.path, 'config', 'get', 'transcription.chunk_seconds'])).stdout).toBe('1800\n');
    await run(['--db', db.path, 'config', 'unset', 'transcription.api']);
  });

  it('the environment overrides the database and says so', async () => {
    await run(['--db', db.path, 'config', 'set', 'llm.model', 'llama3.1:8b']);
    const env = { SYNTHEO_LLM_MODEL: 'qwen2.5:7b' };
    expect((await run(['--db', db.path, 'config', 'get', 'llm.model'], { env })).stdout).toBe('qwen2.5:7b\n');
    const list = await runJson(db.path, ['config', 'list'], { env });
    expect(list.body.data.find((v: { key: string }) => v.key === 'llm.model')).toEqual({
      key: 'llm.model',
      value: 'qwen2.5:7b',
      source: 'environment',
      env: 'SYNTHEO_LLM_MODEL',
      secret: false,
      description: expect.stringContaining('Chat model'),
    });
    const set = await run(['--db', db.path, 'config', 'set', 'llm.model', 'mistral'], { env });
    expect(set.stdout).toContain('Note: SYNTHEO_LLM_MODEL is set in this environment and overrides it here.');
    await run(['--db', db.path, 'config', 'unset', 'llm.model']);
  });

  it('API keys are refused with a pointer to the environment, and never printed', async () => {
    const fresh = dbIn(tempDir().dir, 'never.db');
    for (const key of ['llm.api_key', 'transcription.api_key']) {
      const r = await run(['--db', fresh, 'config', 'set', key, 'sk-live-123']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `syntheo: ${key} is a secret and is never stored in the database. Set it in the environment of the worker instead: SYNTHEO_TRANSCRIPTION_API_KEY or SYNTHEO_LLM_API_KEY.\n`,
      );
    }
    expect(existsSync(fresh)).toBe(false);
    expect(readSettings(db.sqlite)).toEqual({});

    const env = { SYNTHEO_LLM_API_KEY: 'sk-live-very-secret' };
    const list = await run(['--db', db.path, 'config', 'list'], { env });
    expect(list.stdout).toMatch(/^llm\.api_key\s+set \(hidden\)\s+environment \(SYNTHEO_LLM_API_KEY\)$/m);
    expect(list.stdout).toMatch(/^transcription\.api_key\s+not set\s+environment only \(SYNTHEO_TRANSCRIPTION_API_KEY\)$/m);
    const json = await run(['--db', db.path, '--json', 'config', 'list'], { env });
    const get = await run(['--db', db.path, 'config', 'get', 'llm.api_key'], { env });
    expect(get.stdout).toBe('set (in SYNTHEO_LLM_API_KEY; the value is never printed)\n');
    for (const out of [list.stdout, json.stdout, get.stdout]) expect(out).not.toContain('very-secret');
    expect(JSON.parse(json.stdout).data.find((v: { key: string }) => v.key === 'llm.api_key')).toMatchObject({ value: null, source: 'environment', secret: true });
  });

  it('invalid values and unknown keys are refused and nothing is stored', async () => {
    const url = await run(['--db', db.path, 'config', 'set', 'transcription.url', 'localhost:8000']);
    expect(url.code).toBe(1);
    expect(url.stderr).toBe('syntheo: transcription.url must be an http:// or https:// URL, got "localhost:8000".\n');
    const api = await run(['--db', db.path, 'config', 'set', 'transcription.api', 'azure']);
    expect(api.stderr).toBe('syntheo: transcription.api must be one of openai, whisper.cpp, got "azure".\n');
    const n = await run(['--db', db.path, 'config', 'set', 'worker.concurrency', '0']);
    expect(n.stderr).toBe('syntheo: worker.concurrency must be a whole number from 1 to 64, got "0".\n');
    const unknown = await runJson(db.path, ['config', 'get', 'llm.temperature']);
    expect(unknown.code).toBe(1);
    expect(unknown.body.error.message).toMatch(/^Unknown setting "llm.temperature". Known settings: transcription.url, /);
    expect(readSettings(db.sqlite)).toEqual({});
    expect((await run(['--db', db.path, 'config', 'set', 'llm.url'])).code).toBe(64);
  });
});
