import type { JSONRPCErrorResponse } from '@modelcontextprotocol/server';

/** Longest error message written to the client. */
export const MAX_ERROR_MESSAGE = 300;
/** Longest `error.data`, as JSON; longer string fields are clipped, and what is still too long is dropped. */
const MAX_ERROR_DATA = 600;

/**
 * An error response as it leaves the process: its message on one line of at most MAX_ERROR_MESSAGE
 * characters, its data bounded. Syntheo's own messages already fit; this catches the SDK's, which
 * dump validation issues as pretty-printed JSON and echo whatever the client sent (a 2 MB URI).
 */
export function boundErrorResponse(response: JSONRPCErrorResponse): JSONRPCErrorResponse {
  const { message, data } = response.error;
  const bounded = oneLine(message);
  const boundedData = data === undefined ? undefined : boundData(data);
  if (bounded === message && boundedData === data) return response;
  const { data: _dropped, ...error } = response.error;
  return { ...response, error: { ...error, message: bounded, ...(boundedData !== undefined ? { data: boundedData } : {}) } };
}

/** One line of at most `max` characters: validation dumps read as `path: problem`, the middle of a long text cut (its end says what to do). */
export function oneLine(message: string, max = MAX_ERROR_MESSAGE): string {
  const text = readableIssues(typeof message === 'string' ? message : String(message))
    // eslint-disable-next-line no-control-regex -- control characters are what is removed
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) * 0.7);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

/** `Prefix: [{"path": ["params", "arguments"], "message": "..."}]` (a zod issue list) -> `Prefix: params.arguments: ...`. */
function readableIssues(message: string): string {
  const start = message.indexOf('[');
  if (start < 0 || message.length > 100_000) return message;
  let issues: unknown;
  try {
    issues = JSON.parse(message.slice(start));
  } catch {
    return message;
  }
  if (!Array.isArray(issues) || issues.length === 0 || !issues.every((i) => i !== null && typeof i === 'object' && typeof (i as { message?: unknown }).message === 'string')) return message;
  const described = (issues as { path?: unknown; message: string }[]).map((issue) => {
    const path = Array.isArray(issue.path) ? issue.path.map(String).join('.') : '';
    return path ? `${path}: ${issue.message}` : issue.message;
  });
  const prefix = message.slice(0, start).trim();
  return `${prefix ? `${prefix.replace(/:$/, '')}: ` : 'Invalid request: '}${described.join('; ')}`;
}

function boundData(data: unknown): unknown {
  if (fits(data)) return data;
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    const clipped = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === 'string' ? oneLine(v, 120) : v]));
    if (fits(clipped)) return clipped;
  }
  return undefined;
}

function fits(data: unknown): boolean {
  try {
    return (JSON.stringify(data) ?? '').length <= MAX_ERROR_DATA;
  } catch {
    return false;
  }
}
