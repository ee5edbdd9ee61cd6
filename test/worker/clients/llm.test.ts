import { afterEach, describe, expect, it } from 'vitest';
import { PermanentHttpError, TransientHttpError } from '../../../src/worker/clients/http.js';
import {
  ContextLengthError,
  SUMMARY_LIMITS,
  buildSummaryPrompt,
  combineSummaries,
  estimateTokens,
  parseSummaryReply,
  summarize,
  type LlmOptions,
} from '../../../src/worker/clients/llm.js';
import { fault, startLlmServer, type ContextErrorStyle, type LlmServer, type LlmServerOptions } from '../../support/llm-server.js';
import { runBuilt } from '../bounded.js';

const TRANSCRIPT =
  'Alice: The budget review moves to Thursday. Maria will send the revised numbers to the finance team before Wednesday. ' +
  'Bob: The product launch is delayed until March. David will update the marketing plan by 2026-03-02.';

const servers: LlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(opts: LlmServerOptions = {}): Promise<LlmServer> {
  const s = await startLlmServer(opts);
  servers.push(s);
  return s;
}

const options = (url: string, extra: Partial<LlmOptions> = {}): LlmOptions => ({
  url,
  model: 'test-model',
  timeoutMs: 5_000,
  retry: { retries: 3, baseDelayMs: 5, maxDelayMs: 20 },
  ...extra,
});

describe('summarize against the loopback chat server', () => {
  it('returns the summary and action items the server derived from the transcript', async () => {
    const s = await server({ apiKey: 'sk-test-key-1234' });
    const summary = await summarize(TRANSCRIPT, options(s.url, { meetingTitle: 'Weekly sync', apiKey: 'sk-test-key-1234' }));
    expect(summary.summaryMarkdown).toBe('## Weekly sync\n\n- Opening words: "Alice: The budget review moves to Thursday. Maria"\n- Length: 35 words');
    expect(summary.actionItems).toEqual([
      { text: 'Maria will send the revised numbers to the finance team before Wednesday', assignee: 'Maria', dueDate: null },
      { text: 'David will update the marketing plan by 2026-03-02', assignee: 'David', dueDate: '2026-03-02' },
    ]);
    const [chat] = s.chats();
    expect(chat!.model).toBe('test-model');
    expect(chat!.response_format).toEqual({ type: 'json_object' });
    expect(chat!.messages[1]!.content).toContain(TRANSCRIPT);
  });

  it('combines partial summaries (the reduce step)', async () => {
    const s = await server();
    const merged = await combineSummaries(
      [
        { summaryMarkdown: 'Budget moved.', actionItems: [{ text: 'Maria will send the numbers', assignee: 'Maria', dueDate: null }] },
        { summaryMarkdown: 'Launch slips.', actionItems: [] },
      ],
      options(s.url),
    );
    expect(merged.actionItems).toEqual([{ text: 'Maria will send the numbers (owner: Maria)', assignee: 'Maria', dueDate: null }]);
    expect(s.chats()[0]!.messages[1]!.content).toContain('## Part 2\nLaunch slips.');
  });

  it('retries without response_format when the server rejects it', async () => {
    const s = await server({ rejectResponseFormat: true });
    const summary = await summarize(TRANSCRIPT, options(s.url));
    expect(summary.actionItems).toHaveLength(2);
    expect(s.requests.map((r) => r.status)).toEqual([400, 200]);
    expect(s.chats().map((c) => c.response_format)).toEqual([{ type: 'json_object' }, undefined]);
  });

  it('500 then success', async () => {
    const s = await server();
    s.script(fault.status(500, 'Internal server error'));
    const summary = await summarize(TRANSCRIPT, options(s.url));
    expect(summary.actionItems).toHaveLength(2);
    expect(s.requests.map((r) => r.status)).toEqual([500, 200]);
  });

  it('429 with Retry-After: the retry arrives after the wait', async () => {
    const s = await server();
    s.script(fault.rateLimit(1));
    await summarize(TRANSCRIPT, options(s.url));
    expect(s.requests[1]!.receivedAt - s.requests[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it('an unknown model is a permanent 404 naming the setting', async () => {
    const s = await server();
    const err = await summarize(TRANSCRIPT, options(s.url, { model: 'llama-9000' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentHttpError);
    expect((err as Error).message).toBe(
      `LLM server at ${s.url}/v1/chat/completions rejected the request (HTTP 404: The model \`llama-9000\` does not exist or you do not have access to it). Check llm.url (the server's base URL, such as http://127.0.0.1:8000 or https://api.openai.com/v1) and llm.model.`,
    );
    expect(s.requests).toHaveLength(1);
  });

  it('a malformed body is permanent', async () => {
    const s = await server();
    s.script(fault.malformed('{"choices": [ '));
    await expect(summarize(TRANSCRIPT, options(s.url))).rejects.toThrow(
      `LLM server at ${s.url}/v1/chat/completions answered HTTP 200 with a body that is not JSON (starts "{"choices": ["). Check that llm.url points at the right kind of server.`,
    );
  });

  it('a reply without choices is permanent', async () => {
    const s = await server();
    s.script(fault.reply({ object: 'chat.completion', choices: [] }));
    await expect(summarize(TRANSCRIPT, options(s.url))).rejects.toThrow(/answered HTTP 200 but the body has no choices\[0\]\.message\.content/);
  });

  it('a server that never answers is bounded by timeoutMs', async () => {
    const s = await server();
    s.script(fault.hang());
    const err = await summarize(TRANSCRIPT, options(s.url, { timeoutMs: 300 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientHttpError);
    expect((err as TransientHttpError).kind).toBe('timeout');
  });

  it('LLM down: refused connection', async () => {
    await expect(summarize(TRANSCRIPT, options('http://127.0.0.1:9', { retry: { retries: 0 } }))).rejects.toThrow(
      'LLM server at http://127.0.0.1:9/v1/chat/completions refused the connection (ECONNREFUSED). Is it running? Check llm.url.',
    );
  });

  it.each<[ContextErrorStyle]>([['llama.cpp'], ['openai'], ['vllm']])('a %s context-size error is a ContextLengthError', async (style) => {
    const s = await server({ contextTokens: 50, contextErrorStyle: style });
    const err = await summarize(TRANSCRIPT, options(s.url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextLengthError);
    const e = err as ContextLengthError;
    const sent = s.chats()[0]!;
    const tokens = Math.ceil(sent.messages.reduce((n, m) => n + m.content.length, 0) / 4);
    expect([e.promptTokens, e.contextTokens]).toEqual([tokens, 50]);
    expect(e.message).toMatch(new RegExp(`^LLM server at ${s.url}/v1/chat/completions says the request is longer than the model's context \\(${tokens} prompt tokens, context 50\\)`));
    // Not retried, and not mistaken for a response_format refusal.
    expect(s.requests).toHaveLength(1);
  });
});

describe('parseSummaryReply', () => {
  it('reads fenced JSON after leading prose', () => {
    const reply = 'Sure! Here is the summary:\n```json\n{"summary_markdown": "## Sync\\n- budget", "action_items": [{"text": "Send numbers", "assignee": "Maria", "due_date": "2026-02-05T00:00:00Z"}]}\n```\nAnything else?';
    expect(parseSummaryReply(reply)).toEqual({ summaryMarkdown: '## Sync\n- budget', actionItems: [{ text: 'Send numbers', assignee: 'Maria', dueDate: '2026-02-05' }] });
  });

  it('accepts action items as strings, renamed fields and placeholder nulls', () => {
    const reply = JSON.stringify({ summary: ['- one', '- two'], actionItems: ['- [ ] Book the room', { task: 'Call Bob', owner: 'N/A', deadline: 'next Friday' }, { nothing: true }] });
    expect(parseSummaryReply(reply)).toEqual({
      summaryMarkdown: '- one\n- two',
      actionItems: [
        { text: 'Book the room', assignee: null, dueDate: null },
        { text: 'Call Bob', assignee: null, dueDate: 'next Friday' },
      ],
    });
  });

  it('drops <think> blocks and survives braces inside strings', () => {
    const reply = '<think>{not json}</think>{"summary_markdown": "Use {braces} \\"quoted\\"", "action_items": []}';
    expect(parseSummaryReply(reply)).toEqual({ summaryMarkdown: 'Use {braces} "quoted"', actionItems: [] });
  });

  it('takes plain prose as the summary', () => {
    expect(parseSummaryReply('The team moved the budget review to Thursday.')).toEqual({ summaryMarkdown: 'The team moved the budget review to Thursday.', actionItems: [] });
  });

  it('rejects truncated JSON and says it was cut off', () => {
    expect(() => parseSummaryReply('{"summary_markdown": "The team', 'length')).toThrow(/broken JSON \(cut off: finish_reason "length"/);
  });

  it('rejects an empty reply', () => {
    expect(() => parseSummaryReply('  ')).toThrow(/the reply was empty/);
  });
});

describe('buildSummaryPrompt', () => {
  it('is pure and says which part it is', () => {
    const a = buildSummaryPrompt({ kind: 'part', transcript: 'hello there', part: 2, parts: 5, meetingTitle: 'Sync' });
    expect(a).toEqual(buildSummaryPrompt({ kind: 'part', transcript: 'hello there', part: 2, parts: 5, meetingTitle: 'Sync' }));
    expect(a[0]!.content).toContain('This is part 2 of 5');
    expect(a[1]!.content).toBe('Meeting title: Sync\n\nTranscript:\n\nhello there');
    expect(estimateTokens('12345678')).toBe(2);
  });
});

describe('hostile replies: linear time, bounded size', () => {
  const parse = (reply: string) => `
    const { parseSummaryReply } = await load('worker/clients/llm.js');
    try { done({ ok: parseSummaryReply(${reply}) }); } catch (e) { done({ error: e.message }); }`;

  it('200,000 "{" are broken JSON, answered at once', () => {
    expect(runBuilt(parse(`'{'.repeat(200_000)`))).toEqual({
      error: 'LLM server at (invalid URL) answered HTTP 200 but the reply is broken JSON. Check that llm.url points at the right kind of server.',
    });
  });

  it('200,000 "{" after a real answer still find the answer', () => {
    expect(runBuilt(parse(`'{"summary_markdown": "ok"} ' + '{'.repeat(200_000)`))).toEqual({ ok: { summaryMarkdown: 'ok', actionItems: [] } });
    expect(runBuilt(parse(`'{'.repeat(200_000) + ' {"summary_markdown": "ok"}'`))).toEqual({ ok: { summaryMarkdown: 'ok', actionItems: [] } });
  });

  it('30,000 <think> never closed: the reply holds only reasoning', () => {
    expect(runBuilt(parse(`'<think>'.repeat(30_000)`))).toEqual({
      error: "LLM server at (invalid URL) answered HTTP 200 but the reply holds only the model's reasoning (a <think> block that never ends). Check that llm.url points at the right kind of server.",
    });
  });

  it('reasoning ended by a lone </think> (its opening tag was in the chat template) is dropped', () => {
    expect(parseSummaryReply('The user wants a summary. Let me think.</think>\n\nBudget moved to Thursday.')).toEqual({ summaryMarkdown: 'Budget moved to Thursday.', actionItems: [] });
    expect(parseSummaryReply('<think>a</think>Launch slips.</think>')).toEqual({ summaryMarkdown: 'Launch slips.</think>', actionItems: [] });
  });

  it('keeps at most 200 action items, each cut to 1,000 characters, and a summary cut to 50,000', () => {
    const reply = JSON.stringify({
      summary_markdown: 's'.repeat(60_000),
      action_items: Array.from({ length: 250 }, (_, i) => ({ text: `${i} ${'t'.repeat(2_000)}`, assignee: 'a'.repeat(500), due_date: '2026-01-02' })),
    });
    const summary = parseSummaryReply(reply);
    expect(summary.summaryMarkdown).toBe(`${'s'.repeat(SUMMARY_LIMITS.markdownChars - 1)}…`);
    expect(summary.actionItems).toHaveLength(200);
    expect(summary.actionItems[199]).toEqual({ text: `199 ${'t'.repeat(995)}…`, assignee: `${'a'.repeat(199)}…`, dueDate: '2026-01-02' });
  });

  it('never cuts inside a surrogate pair', () => {
    const summary = parseSummaryReply(JSON.stringify({ summary_markdown: `${'s'.repeat(SUMMARY_LIMITS.markdownChars - 2)}😀😀` }));
    expect(summary.summaryMarkdown).toBe(`${'s'.repeat(SUMMARY_LIMITS.markdownChars - 2)}…`);
  });

  it('an answer over 4 MiB is refused with what to do', async () => {
    const s = await server({ reply: () => 'x'.repeat(5 * 1024 * 1024) });
    const err = await summarize(TRANSCRIPT, options(s.url, { timeoutMs: 50_000 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentHttpError);
    expect((err as Error).message).toBe(`LLM server at ${s.url}/v1/chat/completions sent a response larger than 4 MiB. A summary is never that long: check llm.url and llm.model.`);
  });
});

