import { afterEach, describe, expect, it } from 'vitest';
import { estimateTokens } from '../../src/worker/clients/llm.js';
import { ContextTooSmallError, answerReserve, planParts, summarizeTranscript, type MapReduceOptions, type SpokenWord } from '../../src/worker/map-reduce.js';
import { promptTokens, startLlmServer, type ChatRequestBody, type LlmServer, type LlmServerOptions } from '../support/llm-server.js';

// Summaries within the model's context, against the loopback chat server (which refuses prompts over
// its context like llama-server does).

const servers: LlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
async function server(opts: LlmServerOptions = {}): Promise<LlmServer> {
  const s = await startLlmServer(opts);
  servers.push(s);
  return s;
}

/** A meeting of `n` numbered sentences; every tenth one is an action item. */
function meeting(n: number): SpokenWord[] {
  const out: SpokenWord[] = [];
  for (let i = 0; i < n; i++) {
    const speaker = i % 2 === 0 ? 'Alice' : 'Bob';
    const sentence = i % 10 === 3 ? `Maria will send report ${i} by Friday.` : `We discussed topic number ${i} at some length today.`;
    for (const text of sentence.split(' ')) out.push({ text, speaker });
  }
  return out;
}

const options = (s: LlmServer, contextTokens: number): MapReduceOptions => ({
  url: s.url,
  model: 'test-model',
  timeoutMs: 5_000,
  retry: { retries: 0 },
  contextTokens,
  meetingTitle: 'Planning',
});

const kind = (c: ChatRequestBody) => (c.messages[0]!.content.startsWith('You merge') ? 'combine' : /This is part (\d+) of (\d+)/.test(c.messages[0]!.content) ? 'part' : 'whole');

describe('summarizeTranscript', () => {
  it('sends a transcript that fits in one request', async () => {
    const s = await server();
    const result = await summarizeTranscript(meeting(20), options(s, 8192));
    expect(result).toMatchObject({ parts: 1, requests: 1 });
    expect(s.chats().map(kind)).toEqual(['whole']);
    expect(result.summary.actionItems.map((a) => a.text)).toEqual(['Maria will send report 3 by Friday', 'Maria will send report 13 by Friday']);
  });

  it('map-reduce under a tiny budget: every part fits, parts overlap, nothing is lost, one combined summary', async () => {
    const s = await server({ contextTokens: 600 });
    const words = meeting(60);
    const result = await summarizeTranscript(words, options(s, 600));
    const chats = s.chats();
    expect(result.parts).toBeGreaterThan(3);
    expect(chats.map(kind)).toEqual([...Array(result.parts).fill('part'), ...chats.slice(result.parts).map(() => 'combine')]);
    expect(chats.every((c) => promptTokens(c) <= 600 - answerReserve(600))).toBe(true);
    expect(s.requests.every((r) => r.status === 200)).toBe(true);
    // Every sentence reached some part; neighbouring parts share words.
    const sent = chats.filter((c) => kind(c) === 'part').map((c) => c.messages[1]!.content);
    for (let i = 0; i < 60; i++) expect(sent.some((p) => p.includes(`number ${i} at`) || p.includes(`report ${i} by`))).toBe(true);
    expect(sent[1]!).toContain(sent[0]!.split(' ').at(-1)!);
    // The final summary is the combining model's (the test model repeats the owner it was shown), with the action items of all parts, once each.
    expect(result.summary.actionItems.map((a) => a.text)).toEqual([3, 13, 23, 33, 43, 53].map((i) => `Maria will send report ${i} by Friday (owner: Maria)`));
  });

  it('a context-length error (llama-server) splits the request instead of failing, sized by the n_ctx it reports', async () => {
    // The server's real context is far smaller than configured: the first request is refused.
    const s = await server({ contextTokens: 700, contextErrorStyle: 'llama.cpp' });
    const result = await summarizeTranscript(meeting(80), options(s, 4096));
    // Refused once; the server said its context size (n_ctx), so every later request fits it.
    expect(s.requests.map((r) => r.status)).toEqual([400, ...Array(s.requests.length - 1).fill(200)]);
    expect(result.parts).toBeGreaterThan(1);
    expect(result.summary.actionItems).toHaveLength(8);
  });

  it('says so when llm.context_tokens cannot even hold the instructions', async () => {
    const s = await server();
    const err = await summarizeTranscript(meeting(40), options(s, 200)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextTooSmallError);
    expect((err as Error).message).toMatch(/^llm\.context_tokens \(200\) leaves no room for the transcript once the instructions \(~\d+ tokens\) and the answer \(~50 tokens\) are counted\. Set it to the model's real context size\.$/);
    expect(s.requests).toHaveLength(0);
  });
});

describe('planParts', () => {
  it('covers every word in order, each part under the limit, with a tenth of overlap', () => {
    const words = meeting(50);
    const parts = planParts(words, 400);
    expect(parts[0]![0]).toBe(0);
    expect(parts.at(-1)![1]).toBe(words.length);
    for (let i = 1; i < parts.length; i++) {
      const [from, to] = parts[i]!;
      const [pFrom, pTo] = parts[i - 1]!;
      expect(from).toBeLessThan(pTo);
      expect(from).toBeGreaterThan(pFrom);
      expect(pTo - from).toBe(Math.floor((pTo - pFrom) * 0.1));
      expect(estimateTokens(words.slice(from, to).map((w) => w.text).join(' '))).toBeLessThanOrEqual(100);
    }
  });
});
