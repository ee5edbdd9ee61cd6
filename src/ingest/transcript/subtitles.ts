import {
  TranscriptBuilder,
  TranscriptFileError,
  cleanSpeaker,
  quote,
  spreadTimes,
  tokens,
  type ParsedTranscript,
  type ParsedWord,
  type TranscriptLimits,
} from './model.js';
import { parenSpeaker, splitSpeaker } from './speakers.js';
import { lines, type Line } from './text.js';
import { parseTimestamp, parseTimingLine } from './timestamps.js';

// WebVTT and SRT: blocks separated by blank lines; a cue is [identifier] + timing line + text lines.
// Speakers: Teams' `<v Name>` voice tags, Zoom's `Name: text`, Google Meet's `(Name)` line (several
// speakers in one cue separated by a `-` line). A block with no timing line after a cue continues that
// cue's text: Google Meet writes blank-ish lines inside cues.

type SubtitleFormat = 'vtt' | 'srt';

interface RawCue {
  startMs: number;
  endMs: number;
  line: number;
  payload: Line[];
}

interface Piece {
  speaker: string | null;
  text: string;
  /** Set when a WebVTT timestamp tag (`<00:00:01.500>`) said when this text is spoken. */
  atMs: number | null;
}

export function parseVtt(text: string, limits: TranscriptLimits): ParsedTranscript {
  return parseSubtitles(text, 'vtt', limits);
}

export function parseSrt(text: string, limits: TranscriptLimits): ParsedTranscript {
  return parseSubtitles(text, 'srt', limits);
}

function parseSubtitles(text: string, format: SubtitleFormat, limits: TranscriptLimits): ParsedTranscript {
  const cues: RawCue[] = [];
  let block: Line[] = [];
  let header = format === 'vtt';
  let first = true;

  const endBlock = (): void => {
    if (block.length === 0) return;
    let b = block;
    block = [];
    if (header) {
      header = false; // WEBVTT line and header fields (Kind:, Language:)
      const k = b.findIndex((l) => l.text.includes('-->'));
      if (k === -1) return;
      b = b.slice(Math.max(1, k - 1)); // no blank line after the header: the cue starts here
    }
    const head = b[0]!.text.trim();
    if (format === 'vtt' && /^(?:NOTE|STYLE|REGION)(?:[ \t]|$)/.test(head)) return;
    const t = b[0]!.text.includes('-->') ? 0 : b.length > 1 && b[1]!.text.includes('-->') ? 1 : -1;
    if (t === -1) {
      const last = cues[cues.length - 1];
      const arrow = b.find((l) => l.text.includes('-->'));
      if (last === undefined || arrow !== undefined) {
        const at = arrow ?? b[0]!;
        throw new TranscriptFileError(
          format,
          at.no,
          arrow !== undefined
            ? `cue timing ${quote(at.text.trim())} must be the first or second line of its block (is a blank line missing before it?)`
            : `expected a cue timing like "00:00:01${format === 'srt' ? ',' : '.'}000 --> 00:00:04${format === 'srt' ? ',' : '.'}000", found ${quote(at.text.trim())}`,
        );
      }
      for (const l of b) last.payload.push(l);
      return;
    }
    const timing = parseTimingLine(b[t]!.text, format, b[t]!.no);
    const payload = b.slice(t + 1);
    const arrow = payload.find((l) => l.text.includes('-->'));
    if (arrow !== undefined) throw new TranscriptFileError(format, arrow.no, `"-->" inside a cue's text (is a blank line missing before this cue?)`);
    if (cues.length >= limits.maxCues) throw new TranscriptFileError(format, b[t]!.no, `the file holds more than ${limits.maxCues} cues`);
    cues.push({ ...timing, line: b[t]!.no, payload });
  };

  for (const line of lines(text, limits.maxLineChars, format)) {
    if (first && format === 'vtt') {
      if (!/^WEBVTT(?:[ \t]|$)/.test(line.text)) throw new TranscriptFileError(format, line.no, 'the first line must be "WEBVTT"');
    }
    first = false;
    if (line.text.trim() === '') endBlock();
    else if (block.length > limits.maxWordsPerCue + 2) throw new TranscriptFileError(format, line.no, `a cue holds more than ${limits.maxWordsPerCue} lines`);
    else block.push(line);
  }
  endBlock();

  // Files list cues in time order; sort (stably) the few that do not.
  for (let i = 1; i < cues.length; i++) {
    if (cues[i]!.startMs < cues[i - 1]!.startMs) {
      cues.sort((a, b) => a.startMs - b.startMs);
      break;
    }
  }

  const builder = new TranscriptBuilder(format, limits);
  let speaker: string | null = null; // a speaker named in one cue goes on until another is named
  for (const cue of cues) {
    const result = piecesOf(cue.payload, format, speaker, limits);
    speaker = result.speaker;
    builder.addCue(timeWords(result.pieces, cue), cue.line);
  }
  return builder.finish();
}

function piecesOf(payload: Line[], format: SubtitleFormat, speaker: string | null, limits: TranscriptLimits): { pieces: Piece[]; speaker: string | null } {
  const pieces: Piece[] = [];
  let fresh = true; // start of a speaker's part: "(Name)" or "Name:" may name them
  let at: number | null = null;
  let words = 0;
  for (const line of payload) {
    let t = line.text.trim();
    if (t === '-') {
      // Google Meet: the next speaker's part of the same cue follows.
      fresh = true;
      speaker = null;
      continue;
    }
    if (/^-[ \t]/.test(t)) {
      // Subtitle dialogue dash: another (unnamed, unless "Name:" follows) speaker.
      t = t.slice(2).trim();
      fresh = true;
      speaker = null;
    }
    if (fresh) {
      const named = parenSpeaker(t);
      if (named !== null) {
        speaker = named;
        fresh = false;
        continue;
      }
    }
    for (const tok of tagTokens(t, format, line.no)) {
      if (tok.kind === 'voice') {
        speaker = tok.name;
        fresh = false;
      } else if (tok.kind === 'time') at = tok.ms;
      else {
        let s = tok.text;
        if (fresh && s.trim() !== '') {
          const split = splitSpeaker(s.trimStart());
          if (split !== null) {
            speaker = split.speaker;
            s = split.rest;
          }
          fresh = false;
        }
        if (s.trim() === '') continue;
        words += tokens(s).length;
        if (words > limits.maxWordsPerCue) throw new TranscriptFileError(format, line.no, `a cue holds more than the ${limits.maxWordsPerCue} words allowed`);
        pieces.push({ speaker, text: s, atMs: at });
        at = null;
      }
    }
  }
  return { pieces, speaker };
}

type Tok = { kind: 'text'; text: string } | { kind: 'voice'; name: string | null } | { kind: 'time'; ms: number };

/** Cue text -> text runs, voice tags and timestamp tags; other tags (<c>, <i>, <b>, <font>) are dropped. */
function tagTokens(text: string, format: SubtitleFormat, line: number): Tok[] {
  const out: Tok[] = [];
  let at = 0;
  const plain = (s: string): void => {
    // WebVTT escapes like HTML; SRT has no escapes but may carry ASS positioning like {\an8}.
    const t = format === 'vtt' ? decodeEntities(s) : s.replace(/\{\\[^}]*\}/g, '');
    if (t !== '') out.push({ kind: 'text', text: t });
  };
  while (at < text.length) {
    const lt = text.indexOf('<', at);
    const gt = lt === -1 ? -1 : text.indexOf('>', lt);
    if (lt === -1 || gt === -1) {
      plain(text.slice(at));
      break;
    }
    plain(text.slice(at, lt));
    const tag = text.slice(lt + 1, gt).trim();
    const voice = /^v(?:\.[^\s]*)?(?:[ \t]+(.*))?$/s.exec(tag);
    if (voice !== null) out.push({ kind: 'voice', name: voice[1] === undefined ? null : cleanSpeaker(decodeEntities(voice[1])) });
    else if (/^\d/.test(tag) && format === 'vtt') out.push({ kind: 'time', ms: parseTimestamp(tag, format, line) });
    // other tags (<c.x>, <i>, </v>, <font color=...>) carry no words
    at = gt + 1;
  }
  return out;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', lrm: '', rlm: '' };

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (all, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[name.toLowerCase()] ?? all;
  });
}

/**
 * Words of one cue with times. A WebVTT timestamp tag starts a timed run; words of a run are spread
 * over it in proportion to their length. A run of one word has the file's own timing for it.
 */
function timeWords(pieces: Piece[], cue: RawCue): ParsedWord[] {
  const runs: Array<{ startMs: number; words: Array<{ text: string; speaker: string | null }> }> = [];
  for (const p of pieces) {
    if (runs.length === 0 || p.atMs !== null) {
      const startMs = p.atMs === null ? cue.startMs : Math.min(Math.max(p.atMs, cue.startMs), cue.endMs);
      runs.push({ startMs: Math.max(startMs, runs[runs.length - 1]?.startMs ?? startMs), words: [] });
    }
    const run = runs[runs.length - 1]!;
    for (const t of tokens(p.text)) run.words.push({ text: t, speaker: p.speaker });
  }
  const out: ParsedWord[] = [];
  runs.forEach((run, i) => {
    if (run.words.length === 0) return;
    const endMs = runs[i + 1]?.startMs ?? cue.endMs;
    const times = spreadTimes(
      run.words.map((w) => w.text),
      run.startMs,
      endMs,
    );
    const estimated = run.words.length > 1;
    run.words.forEach((w, j) => out.push({ text: w.text, startMs: times[j]![0], endMs: times[j]![1], speaker: w.speaker, estimated }));
  });
  return out;
}
