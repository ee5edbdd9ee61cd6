import { join } from 'node:path';
import { MultipartError, readMultipart } from '../../src/http/multipart.js';
import { applyFault, openAiError, sendJson, startLoopback, type Fault, type Loopback, type RecordedRequest } from './loopback.js';

export { fault, type Fault, type RecordedRequest } from './loopback.js';

// A scriptable transcription server answering with the canned shapes of real ones:
//  - OpenAI `POST /v1/audio/transcriptions`: `json`, `text`, `verbose_json` (top-level `words` when
//    timestamp_granularities[] has "word"), `diarized_json` (segments with `speaker`, no word times).
//    Like OpenAI, gpt-4o-* models refuse verbose_json with HTTP 400; *-diarize models answer diarized_json.
//  - whisper.cpp `POST /inference`: `verbose_json` whose segments hold sub-word tokens in `words`
//    (each with start/end/t_dtw/probability), `json`, `text`; errors as `{"error":"..."}`.
// Uploads are parsed as a stream and counted (or saved to `uploadDir`), never held in memory.

export interface FakeWord {
  text: string;
  /** seconds */
  start: number;
  end: number;
  speaker?: string;
}

export interface FakeTranscriptionOptions {
  /** What was "said". Default: the budget passage, two speakers. */
  words?: FakeWord[];
  /** Save uploads here (for byte-for-byte checks); default: count and discard. */
  uploadDir?: string;
  maxUploadBytes?: number;
  /** whisper.cpp: include control tokens ([_BEG_], [_TT_n]) in segment words, as with --print-special. */
  whisperCppSpecialTokens?: boolean;
  /** whisper.cpp: tag segments with "(speaker N)", as its stereo diarization does. */
  whisperCppSpeakers?: boolean;
  apiKey?: string;
  /** Where the API lives, as with Groq's https://api.groq.com/openai/v1: requests outside it get 404. Default ''. */
  basePath?: string;
  /**
   * The fault of a request chosen by what it carries (its upload's file name), before the script's next
   * one: requests sent concurrently may arrive in any order, so a script in arrival order cannot say
   * which chunk hangs. Null: the script's next fault, if any.
   */
  faultFor?: (request: RecordedRequest) => Fault | null;
}

export type FakeTranscriptionServer = Loopback;

export const BUDGET_WORDS: FakeWord[] = layout(
  'The budget review moves to Thursday.',
  'A',
  0.2,
).concat(layout('Maria will send the revised numbers to the finance team before Wednesday.', 'B', 2.4));

/** Words of a sentence laid end to end from `start`, 0.08 s per letter + 0.1 s gap. */
export function layout(sentence: string, speaker: string, start: number): FakeWord[] {
  let t = start;
  return sentence.split(' ').map((text) => {
    const w = { text, start: round(t), end: round(t + 0.08 * text.length), speaker };
    t += 0.08 * text.length + 0.1;
    return w;
  });
}

export async function startFakeTranscriptionServer(opts: FakeTranscriptionOptions = {}): Promise<FakeTranscriptionServer> {
  const words = opts.words ?? BUDGET_WORDS;
  let uploads = 0;
  return startLoopback(async (ex) => {
    const { req, res, record } = ex;
    const base = opts.basePath ?? '';
    const path = record.path.startsWith(`${base}/`) ? record.path.slice(base.length) : `(outside ${base})${record.path}`;
    const whisperCpp = path === '/inference';
    const answer = (status: number, body: unknown, headers?: Record<string, string>): void => {
      record.status = status;
      sendJson(res, status, body, headers);
    };
    const fail = (status: number, message: string, code: string | null = null, param: string | null = null): void =>
      whisperCpp ? answer(status, { error: message }) : answer(status, openAiError(message, 'invalid_request_error', code, param));

    if (req.method === 'GET' && (path === '/health' || path === '/v1/models')) {
      return answer(200, path === '/health' ? { status: 'ok' } : { object: 'list', data: [{ id: 'whisper-1', object: 'model' }] });
    }
    if (req.method !== 'POST' || (path !== '/v1/audio/transcriptions' && !whisperCpp)) {
      return fail(404, `Unknown request URL: ${req.method} ${record.path}.`, 'unknown_url');
    }
    let form;
    try {
      form = await readMultipart(req, {
        maxBytes: opts.maxUploadBytes ?? Number.MAX_SAFE_INTEGER,
        fileDestination: ({ index }) => (opts.uploadDir !== undefined ? join(opts.uploadDir, `upload-${++uploads}-${index}`) : null),
      });
    } catch (err) {
      if (err instanceof MultipartError) {
        res.setHeader('connection', 'close');
        return fail(err.status, err.status === 413 ? `Maximum content size limit exceeded. ${err.message}` : err.message);
      }
      throw err;
    }
    record.fields = Object.fromEntries(form.fields);
    const file = form.files.find((f) => f.field === 'file');
    if (file !== undefined) record.file = { ...file };
    if (applyFault(ex, opts.faultFor?.(record) ?? ex.nextFault())) return;

    if (opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return answer(401, openAiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
    }
    if (file === undefined) return fail(400, whisperCpp ? "no 'file' field in the request" : "Missing required parameter: 'file'.", null, 'file');
    const field = (name: string): string | undefined => form.fields.get(name)?.[0];
    const format = field('response_format') ?? 'json';
    const text = words.map((w) => w.text).join(' ');

    if (whisperCpp) {
      if (format === 'text') {
        record.status = 200;
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(`${text}\n`);
        return;
      }
      if (format === 'verbose_json') return answer(200, whisperCppVerbose(words, opts));
      return answer(200, { text: ` ${text}\n` });
    }

    const model = field('model') ?? '';
    if (model === '') return fail(400, "Missing required parameter: 'model'.", 'missing_required_parameter', 'model');
    const gpt4o = /^gpt-4o/.test(model);
    const diarize = /diariz/.test(model);
    const allowed = diarize ? ['json', 'text', 'diarized_json'] : gpt4o ? ['json', 'text'] : ['json', 'text', 'verbose_json', 'srt', 'vtt'];
    if (!allowed.includes(format)) {
      return fail(400, `response_format '${format}' is not compatible with model '${model}'. Use ${allowed.map((f) => `'${f}'`).join(' or ')} instead.`, 'unsupported_value', 'response_format');
    }
    const duration = round((words[words.length - 1]?.end ?? 0) + 0.4);
    switch (format) {
      case 'text':
        record.status = 200;
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`${text}\n`);
        return;
      case 'json':
        return answer(200, gpt4o ? { text, usage: { type: 'tokens', input_tokens: 100, output_tokens: words.length, total_tokens: 100 + words.length } } : { text });
      case 'diarized_json':
        return answer(200, {
          task: 'transcribe',
          duration,
          text,
          segments: bySpeaker(words).map((seg, i) => ({ type: 'transcript.text.segment', id: `seg_${i}`, start: seg.start, end: seg.end, text: seg.text, speaker: seg.speaker })),
          usage: { type: 'duration', seconds: Math.ceil(duration) },
        });
      case 'verbose_json': {
        const granularities = form.fields.get('timestamp_granularities[]') ?? [];
        const body: Record<string, unknown> = {
          task: 'transcribe',
          language: 'english',
          duration,
          text,
          segments: sentences(words).map((seg, id) => ({ id, seek: 0, start: seg.start, end: seg.end, text: ` ${seg.text}`, tokens: [50364, 440, 5131], temperature: 0, avg_logprob: -0.21, compression_ratio: 1.2, no_speech_prob: 0.01 })),
        };
        if (granularities.includes('word')) body.words = words.map((w) => ({ word: w.text.replace(/[.,!?]$/, ''), start: w.start, end: w.end }));
        return answer(200, body);
      }
      default:
        return fail(400, `response_format '${format}' is not implemented by the fake server.`, 'unsupported_value', 'response_format');
    }
  });
}

interface Span {
  start: number;
  end: number;
  text: string;
  speaker: string | undefined;
  words: FakeWord[];
}

function group(words: FakeWord[], split: (prev: FakeWord, next: FakeWord) => boolean): Span[] {
  const spans: Span[] = [];
  for (const w of words) {
    const last = spans[spans.length - 1];
    const prev = last?.words[last.words.length - 1];
    if (last === undefined || prev === undefined || split(prev, w)) {
      spans.push({ start: w.start, end: w.end, text: w.text, speaker: w.speaker, words: [w] });
    } else {
      last.end = w.end;
      last.text += ` ${w.text}`;
      last.words.push(w);
    }
  }
  return spans;
}

const sentences = (words: FakeWord[]): Span[] => group(words, (prev) => /[.!?]$/.test(prev.text));
const bySpeaker = (words: FakeWord[]): Span[] => group(words, (prev, next) => prev.speaker !== next.speaker);

/**
 * whisper.cpp's verbose_json: per segment, `words` are BPE tokens. A token beginning with a space
 * starts a word; the rest continue it (" rev" "ised"), punctuation is its own token (".").
 */
function whisperCppVerbose(words: FakeWord[], opts: FakeTranscriptionOptions): Record<string, unknown> {
  const segs = sentences(words);
  return {
    task: 'transcribe',
    language: 'en',
    duration: round((words[words.length - 1]?.end ?? 0) + 0.4),
    text: segs.map((s) => ` ${s.text}`).join('\n'),
    segments: segs.map((seg, id) => {
      const tokens: { word: string; start: number; end: number; t_dtw: number; probability: number }[] = [];
      const token = (word: string, start: number, end: number): void => void tokens.push({ word, start: round(start), end: round(end), t_dtw: -1, probability: 0.93 });
      if (opts.whisperCppSpecialTokens === true) token('[_BEG_]', seg.start, seg.start);
      for (const w of seg.words) {
        const punct = /[.,!?]$/.test(w.text) ? w.text.slice(-1) : '';
        const bare = punct === '' ? w.text : w.text.slice(0, -1);
        const pieces = bare.length > 5 ? [bare.slice(0, 3), bare.slice(3)] : [bare];
        const span = (w.end - w.start) / (pieces.length + (punct === '' ? 0 : 0.5));
        pieces.forEach((p, i) => token(i === 0 ? ` ${p}` : p, w.start + i * span, w.start + (i + 1) * span));
        if (punct !== '') token(punct, w.end - span / 2, w.end);
      }
      if (opts.whisperCppSpecialTokens === true) token(`[_TT_${Math.round(seg.end * 50)}]`, seg.end, seg.end);
      const segment: Record<string, unknown> = {
        id,
        text: ` ${seg.text}`,
        start: seg.start,
        end: seg.end,
        tokens: tokens.map((_, i) => 1000 + i),
        words: tokens,
        temperature: 0,
        avg_logprob: -0.18,
        no_speech_prob: 0.02,
      };
      if (opts.whisperCppSpeakers === true && seg.speaker !== undefined) segment.speaker = `(speaker ${seg.speaker === 'A' ? 0 : 1})`;
      return segment;
    }),
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
