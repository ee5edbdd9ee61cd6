import type { Dispatcher } from 'undici';
import type { Logger } from '../../log.js';
import { displayUrl } from '../../text/url.js';
import {
  HttpClientError,
  LLM_SERVICE,
  PermanentHttpError,
  clip,
  isRecord,
  malformed,
  parseJsonBody,
  sendWithRetry,
  type RetryPolicy,
} from './http.js';

/** An action item as the model's reply gives it (camelCase; the domain's ActionItem is the stored one). */
export interface LlmActionItem {
  text: string;
  assignee: string | null;
  dueDate: string | null;
}

/** A summary as the model's reply gives it, before it is stored as the domain's Summary. */
export interface LlmSummary {
  summaryMarkdown: string;
  actionItems: LlmActionItem[];
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
  /** Overrides MAX_LLM_RESPONSE_BYTES (tests). */
  maxResponseBytes?: number;
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
  | { kind: 'combine'; partials: LlmSummary[]; meetingTitle?: string };

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

export async function summarize(transcriptText: string, opts: LlmOptions & { part?: { index: number; of: number } }): Promise<LlmSummary> {
  const prompt: SummaryPrompt =
    opts.part !== undefined
      ? { kind: 'part', transcript: transcriptText, part: opts.part.index, parts: opts.part.of, meetingTitle: opts.meetingTitle }
      : { kind: 'transcript', transcript: transcriptText, meetingTitle: opts.meetingTitle };
  return completeSummary(buildSummaryPrompt(prompt), opts);
}

/** The reduce step of map-reduce: one summary from the summaries of consecutive parts. */
export async function combineSummaries(partials: LlmSummary[], opts: LlmOptions): Promise<LlmSummary> {
  return completeSummary(buildSummaryPrompt({ kind: 'combine', partials, meetingTitle: opts.meetingTitle }), opts);
}

/** Sends the messages, asking for a JSON object, and parses the reply into an LlmSummary. */
export async function completeSummary(messages: ChatMessage[], opts: LlmOptions): Promise<LlmSummary> {
  const content = await chat(messages, opts, true);
  const { summary, cuts } = readSummaryReply(content.text, content.finishReason, content.url, content.status, content.attempts);
  if (cuts.length > 0) opts.logger?.warn({ url: displayUrl(content.url), cuts }, 'the LLM reply was larger than a summary can be; the excess was dropped');
  return summary;
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
      maxResponseBytes: opts.maxResponseBytes,
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
 * What is kept of a reply (SPEC: bounded input from servers). A model that writes more has gone wrong;
 * the excess is dropped and logged, never stored: get_meeting stays small.
 */
export const SUMMARY_LIMITS = Object.freeze({
  /** Characters of summary_markdown. */
  markdownChars: 50_000,
  actionItems: 200,
  /** Characters of one action item's text. */
  actionItemChars: 1_000,
  /** Characters of an assignee or a due date. */
  fieldChars: 200,
});

/**
 * Models wrap JSON in code fences, lead with prose, think aloud in <think> tags, rename fields or
 * give action items as plain strings. Take what is usable; prose without JSON becomes the summary.
 * Linear in the reply's length, whatever it holds.
 */
export function parseSummaryReply(content: string, finishReason: string | null = null, url = '', status = 200, attempts = 1): LlmSummary {
  return readSummaryReply(content, finishReason, url, status, attempts).summary;
}

function readSummaryReply(content: string, finishReason: string | null, url: string, status: number, attempts: number): { summary: LlmSummary; cuts: string[] } {
  const fail = (what: string): PermanentHttpError =>
    malformed({ status, headers: {}, body: '', url, attempts }, LLM_SERVICE, what);
  const cutOff = finishReason === 'length' ? ' (cut off: finish_reason "length"; the model ran out of output tokens)' : '';
  const thought = stripThinking(content);
  const text = thought.text.trim();
  if (text === '') {
    if (thought.unclosed) throw fail(`the reply holds only the model's reasoning (a <think> block that never ends)${cutOff}`);
    throw fail(`the reply was empty${finishReason === 'length' ? ' (cut off: finish_reason "length")' : ''}`);
  }
  const cuts: string[] = [];
  const obj = extractJsonObject(text);
  if (obj === null) {
    if (/^(```|\{)/.test(text)) throw fail(`the reply is broken JSON${cutOff}`);
    return { summary: { summaryMarkdown: bound(text, SUMMARY_LIMITS.markdownChars, 'summary', cuts), actionItems: [] }, cuts };
  }
  const summary = pick(obj, ['summary_markdown', 'summaryMarkdown', 'summary', 'markdown', 'overview']);
  const markdown = typeof summary === 'string' ? summary.trim() : Array.isArray(summary) ? summary.filter((s) => typeof s === 'string').join('\n').trim() : '';
  const summaryMarkdown = bound(markdown, SUMMARY_LIMITS.markdownChars, 'summary', cuts);
  const itemsRaw = pick(obj, ['action_items', 'actionItems', 'actions', 'todos', 'tasks']);
  const actionItems: LlmActionItem[] = [];
  if (Array.isArray(itemsRaw)) {
    let usable = 0;
    for (const value of itemsRaw) {
      const item = readActionItem(value, cuts);
      if (item === null) continue;
      if (++usable <= SUMMARY_LIMITS.actionItems) actionItems.push(item);
    }
    if (usable > SUMMARY_LIMITS.actionItems) cuts.push(`action items: ${usable} given, the first ${SUMMARY_LIMITS.actionItems} kept`);
  }
  if (summaryMarkdown === '' && actionItems.length === 0) throw fail('the reply JSON has neither "summary_markdown" nor "action_items"');
  return { summary: { summaryMarkdown, actionItems }, cuts };
}

/** Cuts `text` to `max` characters (never inside a surrogate pair), noting the cut. */
function bound(text: string, max: number, what: string, cuts: string[]): string {
  if (text.length <= max) return text;
  cuts.push(`${what}: ${text.length} characters, cut to ${max}`);
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

const THINK_TAG = /<(\/?)think>/gi;

/**
 * Removes <think>…</think> blocks in one pass. A reply that starts with reasoning and a lone </think>
 * (the opening tag was in the chat template) loses that reasoning too; an opening tag never closed
 * hides everything after it (the model was cut off while reasoning).
 */
export function stripThinking(content: string): { text: string; unclosed: boolean } {
  let out = '';
  let from = 0;
  let open = false;
  let seenTag = false;
  THINK_TAG.lastIndex = 0;
  for (let m = THINK_TAG.exec(content); m !== null; m = THINK_TAG.exec(content)) {
    const closing = m[1] === '/';
    if (!open && !closing) {
      out += content.slice(from, m.index);
      open = true;
    } else if (open && closing) {
      open = false;
      from = THINK_TAG.lastIndex;
    } else if (!open && closing && !seenTag) {
      from = THINK_TAG.lastIndex;
    }
    seenTag = true;
  }
  if (open) return { text: out, unclosed: true };
  return { text: out + content.slice(from), unclosed: false };
}

function pick(obj: Record<string, unknown>, keys: string[]): unknown {
  for (const k of keys) if (obj[k] !== undefined && obj[k] !== null) return obj[k];
  return undefined;
}

function readActionItem(value: unknown, cuts: string[]): LlmActionItem | null {
  const fields = (text: string, assignee: string | null, dueDate: string | null): LlmActionItem => ({
    text: bound(text, SUMMARY_LIMITS.actionItemChars, 'action item text', cuts),
    assignee: assignee === null ? null : bound(assignee, SUMMARY_LIMITS.fieldChars, 'assignee', cuts),
    dueDate: dueDate === null ? null : bound(dueDate, SUMMARY_LIMITS.fieldChars, 'due date', cuts),
  });
  if (typeof value === 'string') {
    const text = value.replace(/^\s*(?:[-*]|\d+[.)])\s*(?:\[ ?\]\s*)?/, '').trim();
    return text === '' ? null : fields(text, null, null);
  }
  if (!isRecord(value)) return null;
  const text = pick(value, ['text', 'task', 'title', 'description', 'action', 'item']);
  if (typeof text !== 'string' || text.trim() === '') return null;
  return fields(text.trim(), optionalText(pick(value, ['assignee', 'owner', 'assigned_to', 'who'])), readDueDate(pick(value, ['due_date', 'dueDate', 'due', 'deadline'])));
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

/**
 * The first balanced {...} that parses, fenced or not, trying each opening brace in order as if the
 * text began there. Linear whatever the reply holds: the brace scans and JSON.parse together look at
 * a bounded multiple of the reply's length; past that, what was not tried counts as not JSON.
 */
function extractJsonObject(text: string): Record<string, unknown> | null {
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(text);
  const candidates = fenced?.[1] !== undefined ? [fenced[1], text] : [text];
  const budget = { scan: 8 * text.length + 65_536, parse: 4 * text.length + 65_536 };
  for (const candidate of candidates) {
    const found = firstObject(candidate, budget);
    if (found !== null) return found;
  }
  return null;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const UNKNOWN = -2;
const UNBALANCED = -1;

/**
 * Scanning from an opening brace, every brace met outside a string would, if scanned from, read the
 * rest the same way: one scan pairs them all. So each brace is scanned from only if no earlier scan
 * met it outside a string.
 */
function firstObject(s: string, budget: { scan: number; parse: number }): Record<string, unknown> | null {
  let count = 0;
  for (let i = s.indexOf('{'); i !== -1; i = s.indexOf('{', i + 1)) count++;
  const opens = new Int32Array(count);
  for (let k = 0, i = s.indexOf('{'); i !== -1; i = s.indexOf('{', i + 1)) opens[k++] = i;
  const closes = new Int32Array(count).fill(UNKNOWN);
  const stack = new Int32Array(count);
  for (let k = 0; k < count; k++) {
    if (closes[k] === UNKNOWN) {
      if (budget.scan <= 0) return null;
      let depth = 0;
      let inString = false;
      let ord = k;
      let i = opens[k]!;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (inString) {
          if (c === BACKSLASH) i++;
          else if (c === QUOTE) inString = false;
        } else if (c === QUOTE) inString = true;
        else if (c === OPEN) {
          while (opens[ord]! < i) ord++;
          stack[depth++] = ord;
        } else if (c === CLOSE) {
          closes[stack[--depth]!] = i;
          if (depth === 0) break;
        }
      }
      budget.scan -= i - opens[k]! + 1;
      while (depth > 0) closes[stack[--depth]!] = UNBALANCED;
    }
    const end = closes[k]!;
    if (end < 0) continue;
    const length = end + 1 - opens[k]!;
    if (length > budget.parse) continue;
    budget.parse -= length;
    try {
      const parsed: unknown = JSON.parse(s.slice(opens[k]!, end + 1));
      if (isRecord(parsed)) return parsed;
    } catch {
      // try the next opening brace
    }
  }
  return null;
}
