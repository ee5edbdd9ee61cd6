import type { Dispatcher } from 'undici';
import type { Logger } from '../../log.js';
import {
  HttpClientError,
  LLM_SERVICE,
  PermanentHttpError,
  clip,
  displayUrl,
  isRecord,
  malformed,
  parseJsonBody,
  sendWithRetry,
  type RetryPolicy,
} from './http.js';

export interface ActionItem {
  text: string;
  assignee: string | null;
  dueDate: string | null;
}

export interface Summary {
  summaryMarkdown: string;
  actionItems: ActionItem[];
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmOptions {
  /** Base URL, e.g. http://127.0.0.1:11434 (Ollama) or http://127.0.0.1:8080 (llama-server). */
  url: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  connectTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  meetingTitle?: string;
  signal?: AbortSignal;
  logger?: Logger;
  dispatcher?: Dispatcher;
  temperature?: number;
}

/** The request did not fit the model's context: split the input and try again. */
export class ContextLengthError extends PermanentHttpError {
  constructor(
    source: HttpClientError,
    /** Tokens the server counted in the prompt, when it said. */
    readonly promptTokens: number | null,
    /** The server's context size, when it said. */
    readonly contextTokens: number | null,
  ) {
    const sizes =
      promptTokens !== null && contextTokens !== null
        ? ` (${promptTokens} prompt tokens, context ${contextTokens})`
        : contextTokens !== null
          ? ` (context ${contextTokens} tokens)`
          : '';
    const said = source.server.message !== undefined ? `: "${clip(source.server.message, 200)}"` : '';
    super(
      `${LLM_SERVICE.label} at ${source.url} says the request is longer than the model's context${sizes}${said}. Split the text into smaller parts, or raise llm.context_tokens only if the server's context really is larger.`,
      'status',
      source.url,
      source.status,
      source.server,
      source.attempts,
    );
  }
}

/** Rough token count (≈4 characters per token for English), good enough to size chunks. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export type SummaryPrompt =
  | { kind: 'transcript'; transcript: string; meetingTitle?: string }
  | { kind: 'part'; transcript: string; part: number; parts: number; meetingTitle?: string }
  | { kind: 'combine'; partials: Summary[]; meetingTitle?: string };

const JSON_CONTRACT = [
  'Answer with one JSON object and nothing else, in this shape:',
  '{"summary_markdown": "<Markdown>", "action_items": [{"text": "<what>", "assignee": "<name or null>", "due_date": "<YYYY-MM-DD or null>"}]}',
  'Use null when the transcript does not say who or when. Do not invent facts, names or dates.',
].join('\n');

/** Pure: the chat messages for one summary request (whole transcript, one part of it, or combining parts). */
export function buildSummaryPrompt(input: SummaryPrompt): ChatMessage[] {
  const title = input.meetingTitle !== undefined && input.meetingTitle.trim() !== '' ? `Meeting title: ${input.meetingTitle.trim()}\n\n` : '';
  if (input.kind === 'combine') {
    const parts = input.partials
      .map((p, i) => {
        const items = p.actionItems.map((a) => `- ${a.text}${a.assignee !== null ? ` (owner: ${a.assignee})` : ''}${a.dueDate !== null ? ` (due: ${a.dueDate})` : ''}`).join('\n');
        return `## Part ${i + 1}\n${p.summaryMarkdown.trim()}\n\nAction items:\n${items === '' ? '(none)' : items}`;
      })
      .join('\n\n');
    return [
      {
        role: 'system',
        content:
          'You merge partial summaries of consecutive parts of one meeting into a single summary. ' +
          'Write the summary in Markdown: a short overview, then the decisions and key points as bullet lists. ' +
          'Merge duplicate action items.\n' +
          JSON_CONTRACT,
      },
      { role: 'user', content: `${title}Partial summaries, in order:\n\n${parts}` },
    ];
  }
  const scope =
    input.kind === 'part'
      ? `This is part ${input.part} of ${input.parts} of a longer transcript; summarise only this part, it will be merged with the others later. `
      : '';
  return [
    {
      role: 'system',
      content:
        'You summarise meeting transcripts. ' +
        scope +
        'Write the summary in Markdown: a short overview, then the decisions and key points as bullet lists. ' +
        'List every action item: a task someone agreed or was asked to do.\n' +
        JSON_CONTRACT,
    },
    { role: 'user', content: `${title}Transcript:\n\n${input.transcript}` },
  ];
}

export async function summarize(transcriptText: string, opts: LlmOptions & { part?: { index: number; of: number } }): Promise<Summary> {
  const prompt: SummaryPrompt =
    opts.part !== undefined
      ? { kind: 'part', transcript: transcriptText, part: opts.part.index, parts: opts.part.of, meetingTitle: opts.meetingTitle }
      : { kind: 'transcript', transcript: transcriptText, meetingTitle: opts.meetingTitle };
  return completeSummary(buildSummaryPrompt(prompt), opts);
}

/** The reduce step of map-reduce: one summary from the summaries of consecutive parts. */
export async function combineSummaries(partials: Summary[], opts: LlmOptions): Promise<Summary> {
  return completeSummary(buildSummaryPrompt({ kind: 'combine', partials, meetingTitle: opts.meetingTitle }), opts);
}

/** Sends the messages, asking for a JSON object, and parses the reply into a Summary. */
export async function completeSummary(messages: ChatMessage[], opts: LlmOptions): Promise<Summary> {
  const content = await chat(messages, opts, true);
  return parseSummaryReply(content.text, content.finishReason, content.url, content.status, content.attempts);
}

interface ChatReply {
  text: string;
  finishReason: string | null;
  url: string;
  status: number;
  attempts: number;
}

async function chat(messages: ChatMessage[], opts: LlmOptions, jsonMode: boolean): Promise<ChatReply> {
  const payload: Record<string, unknown> = { model: opts.model, messages, temperature: opts.temperature ?? 0.2, stream: false };
  if (jsonMode) payload.response_format = { type: 'json_object' };
  let res;
  try {
    res = await sendWithRetry({
      service: LLM_SERVICE,
      baseUrl: opts.url,
      path: '/v1/chat/completions',
      method: 'POST',
      body: () => JSON.stringify(payload),
      apiKey: opts.apiKey,
      timeoutMs: opts.timeoutMs,
      connectTimeoutMs: opts.connectTimeoutMs,
      retry: opts.retry,
      signal: opts.signal,
      logger: opts.logger,
      dispatcher: opts.dispatcher,
    });
  } catch (err) {
    const context = asContextLengthError(err);
    if (context !== null) throw context;
    if (jsonMode && err instanceof PermanentHttpError && (err.status === 400 || err.status === 422)) {
      // Some servers (older vLLM, LM Studio, proxies) reject response_format; the prompt asks for JSON anyway.
      opts.logger?.info({ reason: err.message }, 'LLM server refused response_format json_object; retrying without it');
      return chat(messages, opts, false);
    }
    throw err;
  }
  const body = parseJsonBody(res, LLM_SERVICE);
  const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = isRecord(choice) ? choice.message : undefined;
  const content = isRecord(message) ? message.content : undefined;
  if (typeof content !== 'string') throw malformed(res, LLM_SERVICE, 'the body has no choices[0].message.content');
  if (isRecord(body) && isRecord(body.usage)) {
    opts.logger?.debug({ url: displayUrl(res.url), usage: body.usage, attempts: res.attempts }, 'LLM answered');
  }
  const finishReason = isRecord(choice) && typeof choice.finish_reason === 'string' ? choice.finish_reason : null;
  return { text: content, finishReason, url: res.url, status: res.status, attempts: res.attempts };
}

const CONTEXT_WORDING =
  /context[ _-]?(length|size|window)|exceed_context|maximum context|too many tokens|prompt is too long|input (length|is too long)|exceeds the (available |model'?s? )?(context|maximum)|reduce the length/i;

/** llama-server exceed_context_size_error, OpenAI context_length_exceeded, vLLM / Ollama / LM Studio wording. */
export function asContextLengthError(err: unknown): ContextLengthError | null {
  if (err instanceof ContextLengthError) return err;
  if (!(err instanceof PermanentHttpError) || err.status === null) return null;
  if (err.status !== 400 && err.status !== 413 && err.status !== 422) return null;
  const s = err.server;
  const said = `${s.type ?? ''} ${s.code ?? ''} ${s.message ?? ''}`;
  if (!CONTEXT_WORDING.test(said)) return null;
  const raw = isRecord(s.raw) ? (isRecord(s.raw.error) ? s.raw.error : s.raw) : {};
  const nPrompt = typeof raw.n_prompt_tokens === 'number' ? raw.n_prompt_tokens : numberAfter(s.message, /(?:resulted in|requested|prompt (?:has|contains)|you requested)\s+(\d+)\s+tokens/i);
  const nCtx = typeof raw.n_ctx === 'number' ? raw.n_ctx : numberAfter(s.message, /maximum context length is\s+(\d+)/i);
  return new ContextLengthError(err, nPrompt, nCtx);
}

function numberAfter(text: string | undefined, re: RegExp): number | null {
  const m = text === undefined ? null : re.exec(text);
  return m?.[1] !== undefined ? Number(m[1]) : null;
}

/**
 * Models wrap JSON in code fences, lead with prose, think aloud in <think> tags, rename fields or
 * give action items as plain strings. Take what is usable; prose without JSON becomes the summary.
 */
export function parseSummaryReply(content: string, finishReason: string | null = null, url = '', status = 200, attempts = 1): Summary {
  const text = content.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fail = (what: string): PermanentHttpError =>
    malformed({ status, headers: {}, body: '', url, attempts }, LLM_SERVICE, what);
  if (text === '') throw fail(`the reply was empty${finishReason === 'length' ? ' (cut off: finish_reason "length")' : ''}`);

  const obj = extractJsonObject(text);
  if (obj === null) {
    if (/^(```|\{)/.test(text)) {
      throw fail(`the reply is broken JSON${finishReason === 'length' ? ' (cut off: finish_reason "length"; the model ran out of output tokens)' : ''}`);
    }
    return { summaryMarkdown: text, actionItems: [] };
  }
  const summary = pick(obj, ['summary_markdown', 'summaryMarkdown', 'summary', 'markdown', 'overview']);
  const summaryMarkdown = typeof summary === 'string' ? summary.trim() : Array.isArray(summary) ? summary.filter((s) => typeof s === 'string').join('\n').trim() : '';
  const itemsRaw = pick(obj, ['action_items', 'actionItems', 'actions', 'todos', 'tasks']);
  const actionItems = (Array.isArray(itemsRaw) ? itemsRaw : []).map(readActionItem).filter((a): a is ActionItem => a !== null);
  if (summaryMarkdown === '' && actionItems.length === 0) throw fail('the reply JSON has neither "summary_markdown" nor "action_items"');
  return { summaryMarkdown, actionItems };
}

function pick(obj: Record<string, unknown>, keys: string[]): unknown {
  for (const k of keys) if (obj[k] !== undefined && obj[k] !== null) return obj[k];
  return undefined;
}

function readActionItem(value: unknown): ActionItem | null {
  if (typeof value === 'string') {
    const text = value.replace(/^\s*(?:[-*]|\d+[.)])\s*(?:\[ ?\]\s*)?/, '').trim();
    return text === '' ? null : { text, assignee: null, dueDate: null };
  }
  if (!isRecord(value)) return null;
  const text = pick(value, ['text', 'task', 'title', 'description', 'action', 'item']);
  if (typeof text !== 'string' || text.trim() === '') return null;
  return { text: text.trim(), assignee: optionalText(pick(value, ['assignee', 'owner', 'assigned_to', 'who'])), dueDate: readDueDate(pick(value, ['due_date', 'dueDate', 'due', 'deadline'])) };
}

function optionalText(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' || /^(null|none|n\/a|unknown|unassigned|tbd|-)$/i.test(t) ? null : t;
}

/** ISO dates are kept as YYYY-MM-DD; other wording ("next Friday") is kept as said. */
function readDueDate(v: unknown): string | null {
  const t = optionalText(v);
  if (t === null) return null;
  const iso = /^(\d{4}-\d{2}-\d{2})(?:[T ][\d:.]+Z?)?$/.exec(t);
  return iso?.[1] ?? t;
}

/** The first balanced {...} that parses, fenced or not. */
function extractJsonObject(text: string): Record<string, unknown> | null {
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(text);
  const candidates = fenced?.[1] !== undefined ? [fenced[1], text] : [text];
  for (const candidate of candidates) {
    for (let start = candidate.indexOf('{'); start !== -1; start = candidate.indexOf('{', start + 1)) {
      const end = matchingBrace(candidate, start);
      if (end === -1) continue;
      try {
        const parsed: unknown = JSON.parse(candidate.slice(start, end + 1));
        if (isRecord(parsed)) return parsed;
      } catch {
        // try the next opening brace
      }
    }
  }
  return null;
}

function matchingBrace(s: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}
