import { TranscriptBuilder, TranscriptFileError, MAX_TIME_MS, NOMINAL_MS_PER_WORD, cleanSpeaker, spreadTimes, tokens, type ParsedTranscript, type ParsedWord, type TranscriptLimits } from './model.js';
import { checkJson } from './json-check.js';

// Whisper JSON as tools save it:
// - OpenAI / speaches / Groq `verbose_json`: `segments[{start,end,text,speaker?}]`, top-level
//   `words[{word,start,end}]` (seconds); OpenAI `diarized_json` (segments with `speaker`);
// - whisper.cpp `whisper-server` verbose_json: sub-word tokens in `segments[].words`;
// - whisper.cpp CLI `-oj`/`-ojf`: `transcription[{offsets:{from,to} (ms), text, tokens?}]`;
// - plain `json` (`{text}`): words at a nominal rate (or over `duration`), marked estimated.

const FORMAT = 'verbose_json';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

interface Token {
  text: string;
  startMs: number | null;
  endMs: number | null;
  /** A whisper.cpp sub-word token that continues the previous word (no leading space). */
  continues: boolean;
  /** WhisperX names a speaker per word. */
  speaker?: string | null;
}

interface Segment {
  startMs: number;
  endMs: number;
  text: string;
  speaker: string | null;
  tokens: Token[] | null;
}

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (problem: string): TranscriptFileError => new TranscriptFileError(FORMAT, null, problem);

export function parseWhisperJson(text: string, limits: TranscriptLimits): ParsedTranscript {
  checkJson(text, limits.maxJsonDepth, FORMAT);
  const body = JSON.parse(text) as Json;
  if (!isObj(body)) throw bad('the JSON is not an object with "segments", "words", "transcription" or "text"');
  const b = new TranscriptBuilder(FORMAT, limits);
  const duration = seconds(body.duration, 'duration', true);
  const language = typeof body.language === 'string' ? body.language.slice(0, 40) : typeof body.result === 'object' && isObj(body.result) && typeof body.result.language === 'string' ? body.result.language.slice(0, 40) : null;

  const segments = Array.isArray(body.transcription)
    ? list(body.transcription, 'transcription', limits.maxCues).map((s, i) => cppSegment(s, i))
    : Array.isArray(body.segments)
      ? list(body.segments, 'segments', limits.maxCues).map((s, i) => openaiSegment(s, i))
      : body.segments !== undefined && body.segments !== null
        ? (() => {
            throw bad('"segments" is not a list');
          })()
        : null;
  const topWords = Array.isArray(body.words) ? list(body.words, 'words', limits.maxWords).map((w, i) => word(w, `words[${i}]`, false)) : null;

  if (topWords !== null && topWords.length > 0 && topWords.every((w) => w.startMs !== null && w.endMs !== null)) {
    addTopWords(b, topWords, segments ?? []);
  } else if (segments !== null && segments.length > 0) {
    for (const seg of segments) b.addCue(segmentWords(seg), null);
  } else {
    const all = typeof body.text === 'string' ? body.text : (topWords ?? []).map((w) => w.text).join(' ');
    if (typeof body.text !== 'string' && topWords === null) throw bad('the JSON has no "segments", "words", "transcription" or "text"');
    const toks = tokens(all);
    if (toks.length > limits.maxWords) throw bad(`the transcript holds more than ${limits.maxWords} words`);
    // One cue per sentence-ish chunk keeps the cue size limit meaningful for long plain texts.
    const end = duration !== null && duration > 0 ? duration : toks.length * NOMINAL_MS_PER_WORD;
    const times = spreadTimes(toks, 0, end);
    for (let at = 0; at < toks.length; at += 1000) {
      b.addCue(
        toks.slice(at, at + 1000).map((t, j) => ({ text: t, startMs: times[at + j]![0], endMs: times[at + j]![1], speaker: null, estimated: true })),
        null,
      );
    }
  }
  return b.finish({ durationMs: duration, language });
}

function list(value: Json[], name: string, max: number): Json[] {
  if (value.length > max) throw bad(`"${name}" holds ${value.length} entries, more than the ${max} allowed`);
  return value;
}

function seconds(v: Json | undefined, where: string, optional: boolean): number | null {
  if (v === undefined || v === null) {
    if (optional) return null;
    throw bad(`${where} is missing`);
  }
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw bad(`${where} is not a number of seconds`);
  const ms = Math.round(v * 1000);
  if (ms > MAX_TIME_MS) throw bad(`${where} is beyond 100 hours`);
  return ms;
}

function millis(v: Json | undefined, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_TIME_MS) throw bad(`${where} is not a time in milliseconds`);
  return Math.round(v);
}

function speakerOf(v: Json | undefined): string | null {
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v !== 'string') return null;
  // whisper.cpp's stereo diarization writes "(speaker 1)" or "(speaker ?)".
  const s = v.trim().replace(/^\((?:speaker\s*)?(.*)\)$/i, '$1');
  return s === '?' ? null : cleanSpeaker(s);
}

function word(v: Json, where: string, tokenised: boolean): Token {
  if (!isObj(v)) throw bad(`${where} is not an object`);
  const raw = typeof v.word === 'string' ? v.word : typeof v.text === 'string' ? v.text : null;
  if (raw === null) throw bad(`${where} has no "word" text`);
  const w: Token = { text: raw, startMs: seconds(v.start, `${where}.start`, true), endMs: seconds(v.end, `${where}.end`, true), continues: tokenised && raw !== '' && !/^\s/u.test(raw) };
  if (v.speaker !== undefined) w.speaker = speakerOf(v.speaker);
  return w;
}

function openaiSegment(v: Json, i: number): Segment {
  const where = `segments[${i}]`;
  if (!isObj(v)) throw bad(`${where} is not an object`);
  const startMs = seconds(v.start, `${where}.start`, false)!;
  const endMs = Math.max(startMs, seconds(v.end, `${where}.end`, false)!);
  const toks = Array.isArray(v.words) ? v.words.map((w, j) => word(w, `${where}.words[${j}]`, true)) : null;
  return { startMs, endMs, text: typeof v.text === 'string' ? v.text : '', speaker: speakerOf(v.speaker), tokens: toks };
}

function cppSegment(v: Json, i: number): Segment {
  const where = `transcription[${i}]`;
  if (!isObj(v) || !isObj(v.offsets)) throw bad(`${where} has no "offsets"`);
  const startMs = millis(v.offsets.from, `${where}.offsets.from`);
  const endMs = Math.max(startMs, millis(v.offsets.to, `${where}.offsets.to`));
  const toks = Array.isArray(v.tokens)
    ? v.tokens.map((t, j) => {
        const w = `${where}.tokens[${j}]`;
        if (!isObj(t) || typeof t.text !== 'string') throw bad(`${w} has no "text"`);
        const off = isObj(t.offsets) ? t.offsets : null;
        return { text: t.text, startMs: off ? millis(off.from, `${w}.offsets.from`) : null, endMs: off ? millis(off.to, `${w}.offsets.to`) : null, continues: t.text !== '' && !/^\s/u.test(t.text) };
      })
    : null;
  return { startMs, endMs, text: typeof v.text === 'string' ? v.text : '', speaker: speakerOf(v.speaker), tokens: toks };
}

// whisper.cpp control tokens ([_BEG_], [_TT_150], <|endoftext|>) and non-speech tags ([BLANK_AUDIO]).
const SPECIAL = /^(\[_[A-Z]+_?\d*\]|<\|[^|]*\|>|\[[A-Z_ ]+\])$/;

/**
 * Sub-word tokens -> words: a token starting with a space starts a word; others extend it. Files
 * whose words carry no leading spaces at all (WhisperX) hold whole words: nothing is merged.
 */
function mergeTokens(toks: Token[]): Token[] {
  if (!toks.some((t) => /^\s/u.test(t.text))) toks = toks.map((t) => ({ ...t, continues: false }));
  const out: Token[] = [];
  for (const tok of toks) {
    const bare = tok.text.trim();
    if (bare === '' || SPECIAL.test(bare)) continue;
    const last = out[out.length - 1];
    if (tok.continues && last !== undefined) {
      last.text += bare;
      if (tok.endMs !== null) last.endMs = last.endMs === null ? tok.endMs : Math.max(last.endMs, tok.endMs);
      if (last.startMs === null) last.startMs = tok.startMs;
    } else out.push({ ...tok, text: bare, continues: false });
  }
  return out.filter((w) => !SPECIAL.test(w.text));
}

function segmentWords(seg: Segment): ParsedWord[] {
  const merged = seg.tokens !== null ? mergeTokens(seg.tokens) : [];
  if (merged.length > 0 && merged.every((w) => w.startMs !== null && w.endMs !== null)) {
    return merged.flatMap((w) => {
      const startMs = Math.min(Math.max(w.startMs!, seg.startMs), seg.endMs);
      const endMs = Math.max(startMs, Math.min(w.endMs!, seg.endMs));
      const parts = tokens(w.text);
      const times = parts.length === 1 ? [[startMs, endMs] as [number, number]] : spreadTimes(parts, startMs, endMs);
      return parts.map((text, i) => ({ text, startMs: times[i]![0], endMs: times[i]![1], speaker: w.speaker ?? seg.speaker, estimated: parts.length > 1 }));
    });
  }
  const text = merged.length > 0 ? merged.map((w) => w.text).join(' ') : seg.text;
  const toks = tokens(text).filter((t) => !SPECIAL.test(t));
  const times = spreadTimes(toks, seg.startMs, seg.endMs);
  return toks.map((t, i) => ({ text: t, startMs: times[i]![0], endMs: times[i]![1], speaker: seg.speaker, estimated: true }));
}

/** Top-level words with times; the speaker and cue are those of the segment holding the word's middle. */
function addTopWords(b: TranscriptBuilder, words: Token[], segments: Segment[]): void {
  const segs = [...segments].sort((x, y) => x.startMs - y.startMs);
  let s = 0;
  let cue: ParsedWord[] = [];
  let cueSeg = -2;
  let prev = 0;
  const flush = (): void => {
    b.addCue(cue, null);
    cue = [];
  };
  for (const w of words) {
    const startMs = Math.max(w.startMs!, prev); // servers sometimes step back a few ms
    const endMs = Math.max(w.endMs!, startMs);
    prev = startMs;
    const mid = (startMs + endMs) / 2;
    while (s < segs.length && segs[s]!.endMs < mid) s++;
    const inSeg = s < segs.length && segs[s]!.startMs <= mid ? s : -1;
    if (inSeg !== cueSeg || cue.length >= 1000) {
      flush();
      cueSeg = inSeg;
    }
    const speaker = inSeg === -1 ? null : segs[inSeg]!.speaker;
    const parts = tokens(w.text).filter((t) => !SPECIAL.test(t));
    const times = parts.length === 1 ? [[startMs, endMs] as [number, number]] : spreadTimes(parts, startMs, endMs);
    parts.forEach((text, i) => cue.push({ text, startMs: times[i]![0], endMs: times[i]![1], speaker, estimated: parts.length > 1 }));
  }
  flush();
}
