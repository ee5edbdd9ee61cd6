import { openAsBlob } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { FormData, type Dispatcher } from 'undici';
import type { Logger } from '../../log.js';
import { audioMime } from '../../audio/sniff.js';
import { displayUrl } from '../../text/url.js';
import {
  PermanentHttpError,
  TRANSCRIPTION_SERVICE,
  isRecord,
  malformed,
  parseJsonBody,
  sendWithRetry,
  type HttpResponse,
  type RetryPolicy,
} from './http.js';

export type TranscriptionApi = 'openai' | 'whisper.cpp';

/** A word as the transcription server gives it (camelCase, times in ms; the domain's TranscriptWord is a stored word with its index). */
export interface ServerWord {
  text: string;
  startMs: number;
  endMs: number;
  speaker: string | null;
}

export interface Transcript {
  text: string;
  language?: string;
  durationMs?: number;
  words: ServerWord[];
  /** 'estimated' when the server gave no word times and we spread words over segments or the duration; 'mixed' when only some segments had them. */
  timing: 'server' | 'estimated' | 'mixed';
  /** The response_format the server finally answered with. */
  responseFormat: string;
}

export interface TranscribeOptions {
  /** Base URL, e.g. http://127.0.0.1:8178 (OpenAI: https://api.openai.com). */
  url: string;
  model?: string;
  apiKey?: string;
  api: TranscriptionApi;
  language?: string;
  /** How long to wait for the answer once the upload is sent (servers answer only when done). */
  timeoutMs: number;
  connectTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
  logger?: Logger;
  dispatcher?: Dispatcher;
  /** Name sent with the upload; OpenAI picks the decoder from its extension. Default: the file's name. */
  filename?: string;
  /** Known duration (e.g. from music-metadata), used to place words when the server gives no times. */
  durationMs?: number;
}

/** Words one transcription answer may carry (three words a second for ~46 hours): more is a broken server. */
export const MAX_TRANSCRIPT_WORDS = 500_000;

/** The recording could not be opened for upload (moved, deleted, unreadable). */
export class RecordingUnreadableError extends Error {
  override name = 'RecordingUnreadableError';
  readonly transient = false;
}

/** A generous answer deadline for servers that reply only when the whole file is done. */
export function transcriptionTimeoutMs(durationMs: number | undefined): number {
  const audio = durationMs ?? 0;
  return Math.max(10 * 60_000, 2 * audio + 5 * 60_000);
}

export async function transcribe(file: string, opts: TranscribeOptions): Promise<Transcript> {
  const filename = opts.filename ?? basename(file);
  let blob: Blob;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EISDIR' });
    // A file-backed Blob: undici streams it from disk part by part, it is never read whole.
    blob = await openAsBlob(file, { type: audioMime(extname(filename)) });
  } catch (err) {
    const code = isRecord(err) && typeof err.code === 'string' ? err.code : 'error';
    throw new RecordingUnreadableError(`Cannot read the recording ${file} (${code}). Was it moved, deleted or made unreadable?`);
  }

  const formats = opts.api === 'whisper.cpp' ? ['verbose_json'] : openAiFormats(opts.model);
  for (let i = 0; ; i++) {
    const format = formats[i]!;
    try {
      const res = await post(blob, filename, format, opts);
      const transcript = normalizeTranscription(parseJsonBody(res, TRANSCRIPTION_SERVICE), { api: opts.api, durationMs: opts.durationMs, responseFormat: format }, res);
      opts.logger?.debug({ url: displayUrl(res.url), format, words: transcript.words.length, timing: transcript.timing, attempts: res.attempts }, 'transcribed');
      return transcript;
    } catch (err) {
      if (i + 1 < formats.length && rejectsResponseFormat(err)) {
        opts.logger?.info({ format, next: formats[i + 1], reason: (err as Error).message }, 'transcription server refused the response format; asking for a simpler one');
        continue;
      }
      throw err;
    }
  }
}

/** gpt-4o-*-transcribe answer only json/text; *-diarize answers diarized_json. Others: verbose_json with word times. */
function openAiFormats(model: string | undefined): string[] {
  if (model !== undefined && /diariz/i.test(model)) return ['diarized_json', 'json'];
  return ['verbose_json', 'json'];
}

async function post(blob: Blob, filename: string, format: string, opts: TranscribeOptions): Promise<HttpResponse> {
  const whisperCpp = opts.api === 'whisper.cpp';
  return sendWithRetry({
    service: TRANSCRIPTION_SERVICE,
    baseUrl: opts.url,
    path: whisperCpp ? '/inference' : '/v1/audio/transcriptions',
    method: 'POST',
    body: () => {
      const form = new FormData();
      form.append('file', blob, filename);
      form.append('response_format', format);
      if (opts.model !== undefined && opts.model !== '') form.append('model', opts.model);
      if (opts.language !== undefined && opts.language !== '') form.append('language', opts.language);
      if (whisperCpp) {
        form.append('temperature', '0.0');
      } else if (format === 'verbose_json') {
        form.append('timestamp_granularities[]', 'word');
        form.append('timestamp_granularities[]', 'segment');
      } else if (format === 'diarized_json') {
        form.append('chunking_strategy', 'auto'); // required by OpenAI for audio over 30 s
      }
      return form;
    },
    apiKey: opts.apiKey,
    timeoutMs: opts.timeoutMs,
    connectTimeoutMs: opts.connectTimeoutMs,
    retry: opts.retry,
    signal: opts.signal,
    logger: opts.logger,
    dispatcher: opts.dispatcher,
  });
}

function rejectsResponseFormat(err: unknown): boolean {
  if (!(err instanceof PermanentHttpError) || (err.status !== 400 && err.status !== 422)) return false;
  const said = `${err.server.param ?? ''} ${err.server.code ?? ''} ${err.server.message ?? ''}`.toLowerCase();
  return /response_format|timestamp_granularit|verbose_json|diarized_json/.test(said);
}

interface NormalizeContext {
  api: TranscriptionApi;
  durationMs?: number;
  responseFormat: string;
}

interface RawWord {
  text: string;
  start: number | null;
  end: number | null;
  /** whisper.cpp sub-word token that continues the previous word (no leading space). */
  continues: boolean;
}

interface RawSegment {
  start: number | null;
  end: number | null;
  text: string;
  speaker: string | null;
  words: RawWord[] | null;
}

/**
 * Any of the accepted shapes -> words with times in ms:
 * OpenAI/speaches/Groq verbose_json (top-level `words`), OpenAI diarized_json (segments with
 * `speaker`, no word times), whisper.cpp verbose_json (sub-word tokens in `segments[].words`),
 * plain json (`{text}`: words spread over the duration).
 */
export function normalizeTranscription(body: unknown, ctx: NormalizeContext, res?: HttpResponse): Transcript {
  const bad = (what: string): Error =>
    res !== undefined ? malformed(res, TRANSCRIPTION_SERVICE, what) : new PermanentHttpError(`Transcription response ${what}.`, 'malformed', '');
  if (!isRecord(body)) throw bad('the JSON body is not an object');
  const segments = Array.isArray(body.segments) ? body.segments.map(readSegment).filter((s): s is RawSegment => s !== null) : null;
  const topWords = Array.isArray(body.words) ? body.words.map((w) => readWord(w, false)).filter((w): w is RawWord => w !== null) : null;
  const rawText = typeof body.text === 'string' ? body.text : null;
  if (rawText === null && segments === null && topWords === null) throw bad('the body has no transcript (no "text", "segments" or "words")');

  const durationSec = num(body.duration);
  const durationMs = durationSec !== null ? Math.round(durationSec * 1000) : ctx.durationMs;
  const language = typeof body.language === 'string' && body.language !== '' ? body.language : undefined;

  // Loops, never push(...spread): a segment may hold any number of tokens; past the bound, stop.
  const tooMany = (): Error => bad(`the transcript has more than ${MAX_TRANSCRIPT_WORDS} words, the most one request may carry (about ${Math.round(MAX_TRANSCRIPT_WORDS / 3 / 3600)} hours of speech)`);
  let words: ServerWord[] = [];
  const add = (w: ServerWord): void => {
    if (words.length >= MAX_TRANSCRIPT_WORDS) throw tooMany();
    words.push(w);
  };
  const addAll = (list: ServerWord[] | null): void => {
    if (list === null) throw tooMany();
    for (const w of list) add(w);
  };
  let timing: Transcript['timing'] = 'server';
  if (topWords !== null && topWords.length > 0 && topWords.every((w) => w.start !== null && w.end !== null)) {
    const speakerAt = speakerLookup(segments);
    for (const w of topWords) {
      const speaker = speakerAt(w.start!, w.end!);
      for (const text of cleanWords(w.text)) add({ text, startMs: ms(w.start!), endMs: ms(w.end!), speaker });
    }
  } else if (segments !== null && segments.some((s) => s.words !== null && s.words.length > 0)) {
    let timed = false;
    for (const seg of segments) {
      const merged = mergeTokens(seg.words ?? []);
      if (merged.length > 0 && merged.every((w) => w.start !== null && w.end !== null)) {
        timed = true;
        if (timing === 'estimated') timing = 'mixed';
        for (const w of merged) add({ text: w.text, startMs: ms(w.start!), endMs: ms(w.end!), speaker: seg.speaker });
      } else {
        timing = timed ? 'mixed' : 'estimated';
        const text = merged.length > 0 ? merged.map((w) => w.text).join(' ') : seg.text;
        addAll(spread(text, seg.start, seg.end, seg.speaker));
      }
    }
  } else if (segments !== null && segments.length > 0) {
    timing = 'estimated';
    for (const seg of segments) addAll(spread(seg.text, seg.start, seg.end, seg.speaker));
  } else {
    timing = 'estimated';
    const text = rawText ?? (topWords ?? []).map((w) => w.text).join(' ');
    addAll(spreadOver(text, 0, durationMs ?? null, null));
  }

  words = monotonic(words);
  const text = rawText !== null && rawText.trim() !== '' ? rawText.replace(/\s+/g, ' ').trim() : words.map((w) => w.text).join(' ');
  const transcript: Transcript = { text, words, timing, responseFormat: ctx.responseFormat };
  if (language !== undefined) transcript.language = language;
  if (durationMs !== undefined) transcript.durationMs = durationMs;
  return transcript;
}

function readSegment(value: unknown): RawSegment | null {
  if (!isRecord(value)) return null;
  const text = typeof value.text === 'string' ? value.text : '';
  const words = Array.isArray(value.words) ? value.words.map((w) => readWord(w, true)).filter((w): w is RawWord => w !== null) : null;
  return { start: num(value.start), end: num(value.end), text, speaker: readSpeaker(value.speaker), words };
}

function readWord(value: unknown, tokens: boolean): RawWord | null {
  if (!isRecord(value)) return null;
  const raw = typeof value.word === 'string' ? value.word : typeof value.text === 'string' ? value.text : null;
  if (raw === null) return null;
  return { text: raw, start: num(value.start), end: num(value.end), continues: tokens && raw !== '' && !/^\s/.test(raw) };
}

function readSpeaker(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  // whisper.cpp's stereo diarization says "(speaker 1)" or "(speaker ?)".
  const s = value.trim().replace(/^\((?:speaker\s*)?(.*)\)$/i, '$1').trim();
  return s === '' || s === '?' ? null : s;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function ms(seconds: number): number {
  return Math.max(0, Math.round(seconds * 1000));
}

// whisper.cpp control tokens ([_BEG_], [_TT_150], <|endoftext|>) and non-speech tags ([BLANK_AUDIO]).
const SPECIAL = /^(\[_[A-Z]+_?\d*\]|<\|[^|]*\|>|\[[A-Z_ ]+\])$/;

/** The words of `text`, without control tokens; null past `limit` words (nothing more is read). */
function cleanWords(text: string, limit?: number): string[];
function cleanWords(text: string, limit: number): string[] | null;
function cleanWords(text: string, limit = Infinity): string[] | null {
  const out: string[] = [];
  for (const m of text.matchAll(/\S+/g)) {
    if (SPECIAL.test(m[0])) continue;
    if (out.length >= limit) return null;
    out.push(m[0]);
  }
  return out;
}

/** Sub-word tokens -> words: a token starting with a space starts a new word; others extend it. */
function mergeTokens(tokens: RawWord[]): RawWord[] {
  const out: RawWord[] = [];
  for (const tok of tokens) {
    const bare = tok.text.trim();
    if (bare === '' || SPECIAL.test(bare)) continue;
    const last = out[out.length - 1];
    if (tok.continues && last !== undefined) {
      last.text += bare;
      if (tok.end !== null) last.end = last.end === null ? tok.end : Math.max(last.end, tok.end);
      if (last.start === null) last.start = tok.start;
    } else {
      out.push({ text: bare, start: tok.start, end: tok.end, continues: false });
    }
  }
  // A "[BLANK_AUDIO]" arrives as several tokens; drop it once whole.
  return out.filter((w) => !SPECIAL.test(w.text));
}

/** The speaker of the first segment (in the server's order) holding a word's middle; binary search, not a scan per word. */
function speakerLookup(segments: RawSegment[] | null): (start: number, end: number) => string | null {
  const spans = (segments ?? [])
    .filter((s) => s.speaker !== null && s.start !== null && s.end !== null)
    .map((s, order) => ({ start: s.start!, end: s.end!, speaker: s.speaker!, order }))
    .sort((a, b) => a.start - b.start || a.order - b.order);
  if (spans.length === 0) return () => null;
  // reach[k]: the latest end among spans[0..k], so the walk back stops once nothing earlier can hold `mid`.
  const reach: number[] = [];
  for (let k = 0; k < spans.length; k++) reach.push(Math.max(spans[k]!.end, k > 0 ? reach[k - 1]! : -Infinity));
  return (start, end) => {
    const mid = (start + end) / 2;
    let lo = 0;
    let hi = spans.length;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      if (spans[m]!.start <= mid) lo = m + 1;
      else hi = m;
    }
    let found: (typeof spans)[number] | null = null;
    // Overlapping segments are rare and short: a bounded walk back finds the ones holding `mid`.
    for (let k = lo - 1, steps = 0; k >= 0 && reach[k]! >= mid && steps < 64; k--, steps++) {
      const span = spans[k]!;
      if (mid <= span.end && (found === null || span.order < found.order)) found = span;
    }
    return found?.speaker ?? null;
  };
}

function spread(text: string, start: number | null, end: number | null, speaker: string | null): ServerWord[] | null {
  return spreadOver(text, start === null ? 0 : ms(start), end === null ? null : ms(end), speaker);
}

const ESTIMATED_MS_PER_WORD = 400; // ~150 words a minute, when nothing says how long it lasted

/** Places words one after another over [startMs, endMs], each in proportion to its length; null past MAX_TRANSCRIPT_WORDS. */
function spreadOver(text: string, startMs: number, endMs: number | null, speaker: string | null): ServerWord[] | null {
  const tokens = cleanWords(text, MAX_TRANSCRIPT_WORDS);
  if (tokens === null) return null;
  if (tokens.length === 0) return [];
  const span = endMs !== null && endMs > startMs ? endMs - startMs : tokens.length * ESTIMATED_MS_PER_WORD;
  const weights = tokens.map((t) => t.length + 1);
  const total = weights.reduce((a, b) => a + b, 0);
  let at = 0;
  return tokens.map((t, i) => {
    const s = startMs + Math.round((at / total) * span);
    at += weights[i]!;
    const e = startMs + Math.round((at / total) * span);
    return { text: t, startMs: s, endMs: e, speaker };
  });
}

/** Servers sometimes emit a token a few ms before the previous one; keep times non-decreasing. */
function monotonic(words: ServerWord[]): ServerWord[] {
  let prev = 0;
  return words.map((w) => {
    const startMs = Math.max(w.startMs, prev);
    const endMs = Math.max(w.endMs, startMs);
    prev = startMs;
    return { ...w, startMs, endMs };
  });
}
