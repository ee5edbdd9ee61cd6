import { applyFault, openAiError, readBody, sendJson, startLoopback, type Loopback, type RecordedRequest } from './loopback.js';

export { fault, type Fault, type RecordedRequest } from './loopback.js';

// A loopback OpenAI chat-completions server for tests. It answers like the real ones do
// (status codes, `{error:{message,type,code}}` bodies, `choices[0].message.content`, `usage`) and
// by default replies with a JSON summary derived from the prompt, so tests can tell that the
// summary came from the transcript.

export type ContextErrorStyle = 'llama.cpp' | 'openai' | 'vllm';

export interface ChatRequestBody {
  model?: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string };
  stream?: boolean;
  [key: string]: unknown;
}

export interface LlmServerOptions {
  /** Model ids served by GET /v1/models; a request naming another model gets 404 model_not_found. Default ['test-model']. */
  models?: string[];
  /** Prompt budget in tokens (≈ chars/4 of all message contents); over it -> HTTP 400. Default: unlimited. */
  contextTokens?: number;
  contextErrorStyle?: ContextErrorStyle;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Answer response_format with HTTP 400, as some servers do. */
  rejectResponseFormat?: boolean;
  /** Replaces the default reply content. */
  reply?: (body: ChatRequestBody) => string;
  /** Where the API lives, as with Groq's https://api.groq.com/openai/v1: requests outside it get 404. Default ''. */
  basePath?: string;
}

export interface LlmServer extends Loopback {
  /** Bodies of the chat requests, in order. */
  chats(): ChatRequestBody[];
}

export function promptTokens(body: ChatRequestBody): number {
  return Math.ceil(body.messages.reduce((n, m) => n + (typeof m.content === 'string' ? m.content.length : 0), 0) / 4);
}

export async function startLlmServer(opts: LlmServerOptions = {}): Promise<LlmServer> {
  const models = opts.models ?? ['test-model'];
  let completions = 0;
  const loop = await startLoopback(async (ex) => {
    const { req, res, record } = ex;
    const answer = (status: number, body: unknown, headers?: Record<string, string>): void => {
      record.status = status;
      sendJson(res, status, body, headers);
    };
    const text = await readBody(req);
    if (applyFault(ex, ex.nextFault())) return;
    const base = opts.basePath ?? '';
    const path = record.path.startsWith(`${base}/`) ? record.path.slice(base.length) : `(outside ${base})${record.path}`;

    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      const given = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      const masked = given === '' ? 'none' : `${given.slice(0, 3)}****${given.slice(-4)}`;
      return answer(401, openAiError(`Incorrect API key provided: ${masked}.`, 'invalid_request_error', 'invalid_api_key'));
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return answer(200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'syntheo-test' })) });
    }
    if (path !== '/v1/chat/completions') {
      return answer(404, openAiError(`Unknown request URL: ${req.method} ${record.path}.`, 'invalid_request_error', 'unknown_url'));
    }
    if (req.method !== 'POST') return answer(405, openAiError(`Method ${req.method} not allowed.`, 'invalid_request_error'));

    let body: ChatRequestBody;
    try {
      body = JSON.parse(text) as ChatRequestBody;
    } catch {
      return answer(400, openAiError('We could not parse the JSON body of your request.', 'invalid_request_error'));
    }
    record.json = body;
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return answer(400, openAiError("Missing required parameter: 'messages'.", 'invalid_request_error', 'missing_required_parameter', 'messages'));
    }
    if (body.model === undefined || !models.includes(body.model)) {
      return answer(404, openAiError(`The model \`${String(body.model)}\` does not exist or you do not have access to it.`, 'invalid_request_error', 'model_not_found'));
    }
    if (body.stream === true) {
      return answer(400, openAiError('stream=true is not supported by this test server.', 'invalid_request_error', 'unsupported_value', 'stream'));
    }
    if (body.response_format !== undefined && opts.rejectResponseFormat === true) {
      return answer(400, openAiError(`response_format ${JSON.stringify(body.response_format)} is not supported by this server.`, 'invalid_request_error', 'unsupported_parameter', 'response_format'));
    }
    const nPrompt = promptTokens(body);
    if (opts.contextTokens !== undefined && nPrompt > opts.contextTokens) {
      return answer(400, contextError(opts.contextErrorStyle ?? 'llama.cpp', nPrompt, opts.contextTokens));
    }

    const content = opts.reply !== undefined ? opts.reply(body) : JSON.stringify(defaultSummary(body));
    const completion = Math.ceil(content.length / 4);
    completions += 1;
    answer(200, {
      id: `chatcmpl-test${completions}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: nPrompt, completion_tokens: completion, total_tokens: nPrompt + completion },
    });
  });
  return { ...loop, chats: () => loop.requests.map((r: RecordedRequest) => r.json).filter((j): j is ChatRequestBody => j !== undefined) };
}

function contextError(style: ContextErrorStyle, nPrompt: number, nCtx: number): Record<string, unknown> {
  switch (style) {
    case 'llama.cpp':
      return { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: nPrompt, n_ctx: nCtx } };
    case 'openai':
      return openAiError(
        `This model's maximum context length is ${nCtx} tokens. However, your messages resulted in ${nPrompt} tokens. Please reduce the length of the messages.`,
        'invalid_request_error',
        'context_length_exceeded',
        'messages',
      );
    case 'vllm':
      return {
        object: 'error',
        message: `This model's maximum context length is ${nCtx} tokens. However, you requested ${nPrompt} tokens in the messages, Please reduce the length of the messages.`,
        type: 'BadRequestError',
        param: null,
        code: 400,
      };
  }
}

/**
 * Deterministic summary of whatever text follows "Transcript:" (or the whole user message):
 * the summary quotes its first words; every "<Name> will <do something>" becomes an action item.
 */
export function defaultSummary(body: ChatRequestBody): { summary_markdown: string; action_items: { text: string; assignee: string | null; due_date: string | null }[] } {
  const user = [...body.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const title = /^Meeting title: (.*)$/m.exec(user)?.[1];
  const afterLabel = /(?:Transcript|Partial summaries, in order):\s*([\s\S]*)$/.exec(user)?.[1] ?? user;
  const words = afterLabel.replace(/^#+ .*$/gm, '').split(/\s+/).filter((w) => w !== '');
  const opening = words.slice(0, 8).join(' ');
  const items: { text: string; assignee: string | null; due_date: string | null }[] = [];
  const seen = new Set<string>();
  for (const m of afterLabel.matchAll(/\b([A-Z][a-z]+) will ([^.!?\n]+)/g)) {
    const text = `${m[1]} will ${m[2]!.trim()}`;
    if (seen.has(text)) continue;
    seen.add(text);
    const due = /\b(\d{4}-\d{2}-\d{2})\b/.exec(text)?.[1] ?? null;
    items.push({ text, assignee: m[1]!, due_date: due });
  }
  const summary = [
    title !== undefined ? `## ${title}` : '## Summary',
    '',
    `- Opening words: "${opening}"`,
    `- Length: ${words.length} words`,
  ].join('\n');
  return { summary_markdown: summary, action_items: items };
}
