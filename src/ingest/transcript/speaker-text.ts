import { TranscriptBuilder, TranscriptFileError, NOMINAL_MS_PER_WORD, cleanSpeaker, spreadTimes, tokens, type ParsedTranscript, type TranscriptLimits } from './model.js';
import { splitSpeaker } from './speakers.js';
import { lines } from './text.js';
import { parseLooseTime } from './timestamps.js';

// Plain text with speaker labels, no cue timings:
//   `Name: text` lines (continuation lines carry on the same speaker's turn),
//   `[00:01:02] Name: text` or `00:01:02 Name: text` (a time before the name),
//   Otter's `Name  0:12` heading followed by the text,
//   a time alone on a line (Google Meet's transcript documents mark every few minutes).
// Every word is estimated: between two known times words are spread in proportion to their length
// (at most MAX_MS_PER_WORD each); after the last one, at the nominal speaking rate.

const FORMAT = 'speaker_text';
const MAX_MS_PER_WORD = 1000;

interface Turn {
  speaker: string | null;
  text: string[];
  atMs: number | null;
  line: number;
}

const TIME_PREFIX = /^(\[?(?:\d{1,2}:)?\d{1,2}:[0-5]\d(?:[.,]\d{1,3})?\]?)[ \t]+(.*)$/u;
const OTTER_HEADING = /^(\p{L}[^:]{0,99}?)[ \t]+((?:\d{1,2}:)?\d{1,2}:[0-5]\d)$/u;

/** What one line says: a new turn (maybe timed), a time mark, or more text. */
export type SpeakerLine = { kind: 'turn'; speaker: string; text: string; atMs: number | null } | { kind: 'time'; atMs: number } | { kind: 'text'; text: string };

export function classifyLine(raw: string): SpeakerLine {
  const t = raw.trim();
  const alone = parseLooseTime(t);
  if (alone !== null) return { kind: 'time', atMs: alone };
  let atMs: number | null = null;
  let rest = t;
  const pre = TIME_PREFIX.exec(t);
  if (pre !== null) {
    atMs = parseLooseTime(pre[1]!);
    rest = pre[2]!;
  }
  const split = splitSpeaker(rest);
  if (split !== null) return { kind: 'turn', speaker: split.speaker, text: split.rest, atMs };
  const otter = OTTER_HEADING.exec(t);
  if (otter !== null) {
    const speaker = cleanSpeaker(otter[1]!);
    const at = parseLooseTime(otter[2]!);
    if (speaker !== null && at !== null && speaker.split(' ').length <= 6) return { kind: 'turn', speaker, text: '', atMs: at };
  }
  return { kind: 'text', text: t };
}

export function parseSpeakerText(text: string, limits: TranscriptLimits): ParsedTranscript {
  const turns: Turn[] = [];
  let pendingTime: number | null = null;
  for (const line of lines(text, limits.maxLineChars, FORMAT)) {
    if (line.text.trim() === '') continue;
    const c = classifyLine(line.text);
    if (c.kind === 'time') {
      pendingTime = c.atMs;
      continue;
    }
    if (c.kind === 'turn') {
      if (turns.length >= limits.maxCues) throw new TranscriptFileError(FORMAT, line.no, `the file holds more than ${limits.maxCues} turns`);
      turns.push({ speaker: c.speaker, text: c.text === '' ? [] : [c.text], atMs: c.atMs ?? pendingTime, line: line.no });
      pendingTime = null;
      continue;
    }
    const last = turns[turns.length - 1];
    // Text before the first speaker is a heading (title, attendees), not speech.
    if (last === undefined) continue;
    if (pendingTime !== null) {
      turns.push({ speaker: last.speaker, text: [c.text], atMs: pendingTime, line: line.no });
      pendingTime = null;
    } else last.text.push(c.text);
  }
  if (turns.length === 0) throw new TranscriptFileError(FORMAT, null, 'no line starts with a speaker name ("Name: text")');

  const b = new TranscriptBuilder(FORMAT, limits);
  const toks = turns.map((t) => tokens(t.text.join(' ')));
  let clock = 0;
  let i = 0;
  while (i < turns.length) {
    // A run: turns from one known time to the next.
    let j = i + 1;
    while (j < turns.length && turns[j]!.atMs === null) j++;
    const start = Math.max(clock, turns[i]!.atMs ?? clock);
    let count = 0;
    for (let k = i; k < j; k++) count += toks[k]!.length;
    const next = j < turns.length ? turns[j]!.atMs! : null;
    const span = next !== null && next > start ? Math.min(next - start, count * MAX_MS_PER_WORD) : count * NOMINAL_MS_PER_WORD;
    const all = toks.slice(i, j).flat();
    const times = spreadTimes(all, start, start + span);
    let w = 0;
    for (let k = i; k < j; k++) {
      const t = turns[k]!;
      b.addCue(
        toks[k]!.map((text) => {
          const [s, e] = times[w++]!;
          return { text, startMs: s, endMs: e, speaker: t.speaker, estimated: true };
        }),
        t.line,
      );
    }
    clock = start + span;
    i = j;
  }
  return b.finish();
}
