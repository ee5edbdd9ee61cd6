import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { summarize } from '../../src/worker/clients/llm.js';
import { transcribe } from '../../src/worker/clients/transcription.js';
import { startFakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { startLlmServer } from '../support/llm-server.js';
import { fixturePath } from '../support/speech-fixtures.js';

// Base URLs as each provider documents them (README, "Import recordings"), pointed at a loopback
// server that lives under the same path and answers 404 anywhere else: the client must call the
// endpoint once, at exactly the path the real server serves.

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** The documented URL with its origin swapped for the loopback server's. */
const at = (documented: string, loopback: string) => documented.replace(/^https?:\/\/[^/]+/, loopback);
/** Where the API lives on the real server: the expected path without the endpoint. */
const basePathOf = (path: string) => path.replace(/\/v1\/(chat\/completions|audio\/transcriptions)$|\/inference$/, '');

const LLM_PROVIDERS: [provider: string, url: string, path: string][] = [
  ['OpenAI', 'https://api.openai.com/v1', '/v1/chat/completions'],
  ['Groq', 'https://api.groq.com/openai/v1', '/openai/v1/chat/completions'],
  ['Ollama', 'http://127.0.0.1:11434/v1', '/v1/chat/completions'],
  ['Ollama (trailing slash)', 'http://127.0.0.1:11434/v1/', '/v1/chat/completions'],
  ['Ollama (no /v1)', 'http://127.0.0.1:11434', '/v1/chat/completions'],
  ['LM Studio', 'http://127.0.0.1:1234/v1', '/v1/chat/completions'],
  ['vLLM', 'http://127.0.0.1:8000/v1', '/v1/chat/completions'],
  ['llama.cpp server', 'http://127.0.0.1:8080', '/v1/chat/completions'],
  ['llama.cpp server (trailing slash)', 'http://127.0.0.1:8080/', '/v1/chat/completions'],
  ['a pasted endpoint', 'http://127.0.0.1:8080/v1/chat/completions', '/v1/chat/completions'],
];

const TRANSCRIPTION_PROVIDERS: [provider: string, url: string, api: 'openai' | 'whisper.cpp', path: string][] = [
  ['OpenAI', 'https://api.openai.com/v1', 'openai', '/v1/audio/transcriptions'],
  ['Groq', 'https://api.groq.com/openai/v1', 'openai', '/openai/v1/audio/transcriptions'],
  ['speaches', 'http://127.0.0.1:8000/v1', 'openai', '/v1/audio/transcriptions'],
  ['speaches (no /v1)', 'http://127.0.0.1:8000', 'openai', '/v1/audio/transcriptions'],
  ['whisper.cpp server', 'http://127.0.0.1:8081', 'whisper.cpp', '/inference'],
  ['whisper.cpp server (trailing slash)', 'http://127.0.0.1:8081/', 'whisper.cpp', '/inference'],
];

describe('LLM base URLs as providers write them', () => {
  it.each(LLM_PROVIDERS)('%s: %s -> POST %s, once', async (_provider, documented, path) => {
    const s = await startLlmServer({ basePath: basePathOf(path) });
    servers.push(s);
    const config = loadConfig({ 'llm.url': at(documented, s.url), 'llm.model': 'test-model' }, {});
    const summary = await summarize('Maria will send the revised numbers before Wednesday.', { url: config.llm.url!, model: config.llm.model!, timeoutMs: 10_000, retry: { retries: 0 } });
    expect(summary.actionItems.map((a) => a.text)).toEqual(['Maria will send the revised numbers before Wednesday']);
    expect(s.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`POST ${path} 200`]);
  });
});

describe('transcription base URLs as providers write them', () => {
  it.each(TRANSCRIPTION_PROVIDERS)('%s: %s (%s) -> POST %s, once', async (_provider, documented, api, path) => {
    const s = await startFakeTranscriptionServer({ basePath: basePathOf(path) });
    servers.push(s);
    const config = loadConfig({ 'transcription.url': at(documented, s.url), 'transcription.api': api }, {});
    const t = await transcribe(fixturePath('budget', 'mp3'), {
      url: config.transcription.url!,
      api: config.transcription.api,
      model: config.transcription.model,
      timeoutMs: 10_000,
      retry: { retries: 0 },
    });
    expect(t.words.length).toBeGreaterThan(10);
    expect(s.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([`POST ${path} 200`]);
  });
});

describe('the base URL is normalised once, in the configuration', () => {
  it('drops a trailing /v1, a pasted endpoint and slashes, and keeps everything else', () => {
    const url = (value: string) => loadConfig({ 'llm.url': value }, {}).llm.url;
    expect(url('https://api.groq.com/openai/v1/')).toBe('https://api.groq.com/openai');
    expect(url('http://127.0.0.1:11434/v1/models')).toBe('http://127.0.0.1:11434');
    expect(url('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(url('http://gateway.local/llm/v10')).toBe('http://gateway.local/llm/v10');
    expect(url('https://gateway.local/openai/v1?api-version=2')).toBe('https://gateway.local/openai?api-version=2');
    const env = { SYNTHEO_TRANSCRIPTION_URL: 'http://127.0.0.1:8081/inference' };
    expect(loadConfig({}, env).transcription.url).toBe('http://127.0.0.1:8081');
  });
});
