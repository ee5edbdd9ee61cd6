import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  TRANSCRIPT_LIMITS,
  TranscriptFileError,
  parseTranscript,
  readTranscriptFile,
  sniffTranscript,
  type ParsedTranscript,
} from '../../src/ingest/transcript/index.js';
import { tempDir } from '../support/db.js';
import { FORMATS, PASSAGES, fixturePath } from '../support/speech-fixtures.js';

const DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'transcripts');
const fixture = (name: string): Buffer => readFileSync(join(DIR, name));
const parse = (name: string): ParsedTranscript => parseTranscript(fixture(name));
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Each turn as "Speaker: words", the way a person reads the transcript. */
const turnsText = (t: ParsedTranscript): string[] =>
  t.turns.map((turn) => `${turn.speaker ?? '?'}: ${t.words.slice(turn.firstWord, turn.firstWord + turn.wordCount).map((w) => w.text).join(' ')}`);

/** Every transcript: times within [0, duration], each word ends after it starts, starts never go back within a cue. */
function expectWellTimed(t: ParsedTranscript): void {
  for (const w of t.words) {
    expect(w.text).toMatch(/^\S+$/u);
    expect(w.endMs).toBeGreaterThanOrEqual(w.startMs);
    expect(w.endMs).toBeLessThanOrEqual(t.durationMs);
  }
  for (const c of t.cues) {
    const words = t.words.slice(c.firstWord, c.firstWord + c.wordCount);
    for (let i = 1; i < words.length; i++) expect(words[i]!.startMs).toBeGreaterThanOrEqual(words[i - 1]!.endMs);
  }
  expect(t.turns.reduce((n, x) => n + x.wordCount, 0)).toBe(t.words.length);
  expect(t.cues.reduce((n, x) => n + x.wordCount, 0)).toBe(t.words.length);
}

const ZOE = 'Zoë Martin';
const JOSE = 'José Pérez';
const LINA = '李娜';

function errorOf(run: () => unknown): TranscriptFileError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(TranscriptFileError);
    return e as TranscriptFileError;
  }
  throw new Error('expected a TranscriptFileError');
}

describe('WebVTT', () => {
  it("Zoom: `Name: text` cues give speakers (non-ASCII names), multi-line cues are one turn, words spread over each cue", () => {
    const t = parse('zoom.vtt');
    expect(t.format).toBe('vtt');
    expect(t.speakers).toEqual([ZOE, JOSE, LINA]);
    expect(turnsText(t)).toEqual([
      `${ZOE}: Good morning everyone, let's start the weekly sync.`,
      `${JOSE}: Thanks Zoë. The budget review moves to Thursday.`,
      `${LINA}: 我同意。The numbers are ready.`,
      `${ZOE}: Great. José, can you send them to the finance team?`,
      `${JOSE}: Yes, before Wednesday.`,
    ]);
    expect(t.turns.map((x) => [x.startMs, x.endMs])).toEqual([
      [0, 4500],
      [4500, 9000],
      [9000, 12000],
      [12000, 15250],
      [15250, 17000],
    ]);
    expect(t.timing).toBe('estimated');
    expect(t.durationMs).toBe(17_000);
    expectWellTimed(t);
    // Spread in proportion to length: "Good" (4+1) of the 52 weighted characters of the 4.5 s cue.
    expect(t.words[0]).toEqual({ text: 'Good', startMs: 0, endMs: 433, speaker: ZOE, estimated: true });
  });

  it("Teams: `<v Name>` voice tags with `</v>` and a class variant `<v.loud Name>`, CRLF lines, a BOM, GUID cue identifiers", () => {
    const bytes = fixture('teams.vtt');
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.includes('\r\n')).toBe(true);
    const t = parseTranscript(bytes);
    expect(t.speakers).toEqual([ZOE, JOSE, LINA]);
    expect(turnsText(t)).toEqual([`${ZOE}: Can everyone hear me?`, `${JOSE}: Yes, loud and clear.`, `${LINA}: The launch is delayed until March.`, `${ZOE}: Understood.`]);
    expect(t.turns[1]).toMatchObject({ startMs: 4100, endMs: 7350 });
    // A cue of one word times that word exactly.
    expect(t.words.at(-1)).toEqual({ text: 'Understood.', startMs: 10_000, endMs: 12_000, speaker: ZOE, estimated: false });
    expectWellTimed(t);
  });

  it('Google Meet: "(Name)" lines, several speakers in one cue after a "-" line, blank-looking lines inside a cue', () => {
    const t = parse('meet.vtt');
    expect(t.speakers).toEqual([ZOE, JOSE, LINA]);
    expect(turnsText(t)).toEqual([`${ZOE}: I wanted to start with a little background so we know who we are talking to.`, `${JOSE}: Happy to help`, `${LINA}: Me too`]);
    expect(t.turns[0]!.startMs).toBe(8000);
    expect(t.turns[1]!.endMs).toBe(16_000); // José's words share the second cue with Zoë's
    expectWellTimed(t);
  });

  it('skips NOTE, STYLE and REGION blocks and header fields; reads cue settings, hours-optional timestamps, entities, and per-word timestamp tags', () => {
    const t = parse('features.vtt');
    expect(t.words.map((w) => w.text)).toEqual(['Tom', '&', 'Jerry', 'say', 'hi', 'there', 'Karaoke', 'timed', 'words']);
    expect(t.speakers).toEqual([]);
    expect(t.words[0]).toMatchObject({ startMs: 1000, estimated: true });
    expect(t.words.slice(6).map((w) => [w.startMs, w.endMs, w.estimated])).toEqual([
      [3_600_000, 3_600_500, false],
      [3_600_500, 3_601_200, false],
      [3_601_200, 3_602_000, false],
    ]);
    expect(t.timing).toBe('mixed');
    expect(t.durationMs).toBe(3_602_000);
  });

  it('a WEBVTT header without the blank line before the first cue still yields that cue', () => {
    const t = parseTranscript(utf8('WEBVTT\n00:00:01.000 --> 00:00:02.000\nZoë Martin: Hi.\n'));
    expect(turnsText(t)).toEqual([`${ZOE}: Hi.`]);
  });

  it('a speaker named in one cue carries on into unlabelled cues; lines like "So, to sum up: ..." are not speakers', () => {
    const t = parseTranscript(utf8('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nZoë Martin: First.\n\n00:00:02.000 --> 00:00:03.000\nSo, to sum up: done.\n'));
    expect(turnsText(t)).toEqual([`${ZOE}: First. So, to sum up: done.`]);
  });

  it('sorts cues that the file lists out of order', () => {
    const t = parseTranscript(utf8('WEBVTT\n\n00:00:05.000 --> 00:00:06.000\nB: second\n\n00:00:01.000 --> 00:00:02.000\nA: first\n'));
    expect(turnsText(t)).toEqual(['A: first', 'B: second']);
  });
});

describe('SRT', () => {
  it('numbered cues with "," milliseconds, `Name: text` speakers, formatting tags, dialogue dashes naming two speakers in one cue', () => {
    const t = parse('meeting.srt');
    expect(t.format).toBe('srt');
    expect(t.speakers).toEqual([ZOE, JOSE, LINA]);
    expect(turnsText(t)).toEqual([`${ZOE}: We agreed to hire two engineers.`, `${JOSE}: Please schedule the interviews next week.`, `${LINA}: Done.`, `${JOSE}: Thanks.`]);
    expect(t.turns[1]).toMatchObject({ startMs: 3000, endMs: 6500 });
    expect(t.durationMs).toBe(8000);
    expectWellTimed(t);
  });

  it('reads UTF-16 files with a BOM (as Windows subtitle tools save them)', () => {
    const text = '1\r\n00:00:01,000 --> 00:00:02,500\r\nJosé Pérez: Olá.\r\n';
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    expect(sniffTranscript(le)).toBe('srt');
    expect(turnsText(parseTranscript(le))).toEqual([`${JOSE}: Olá.`]);
  });

  it('reads Windows-1252 files (old subtitle tools)', () => {
    const bytes = Buffer.from('1\n00:00:01,000 --> 00:00:02,000\nJos\xe9: Ol\xe1.\n', 'latin1');
    expect(turnsText(parseTranscript(bytes))).toEqual(['José: Olá.']);
  });
});

describe('Whisper JSON', () => {
  it('OpenAI verbose_json: top-level words keep their own times (seconds -> ms); duration and language are kept', () => {
    const t = parse('openai-verbose.json');
    expect(t.format).toBe('verbose_json');
    expect(t.timing).toBe('file');
    expect(t.words.slice(0, 3)).toEqual([
      { text: 'The', startMs: 0, endMs: 200, speaker: null, estimated: false },
      { text: 'budget', startMs: 200, endMs: 700, speaker: null, estimated: false },
      { text: 'review', startMs: 700, endMs: 1100, speaker: null, estimated: false },
    ]);
    expect(t.words).toHaveLength(11);
    expect(t.durationMs).toBe(6400);
    expect(t.language).toBe('english');
    // Words are grouped into the file's two segments.
    expect(t.cues.map((c) => c.wordCount)).toEqual([6, 5]);
  });

  it('OpenAI diarized_json: a speaker per segment, words spread over the segment', () => {
    const t = parse('diarized.json');
    expect(t.speakers).toEqual([ZOE, JOSE, LINA]);
    expect(turnsText(t)).toEqual([`${ZOE}: Can everyone hear me?`, `${JOSE}: Yes, loud and clear.`, `${LINA}: 我同意。`]);
    expect(t.turns.map((x) => [x.startMs, x.endMs])).toEqual([
      [500, 2500],
      [3000, 5000],
      [5500, 9000],
    ]);
    expect(t.timing).toBe('estimated');
  });

  it('whisper.cpp server: sub-word tokens merge into words, control tokens dropped, "(speaker 1)" becomes "1"', () => {
    const t = parse('whisper-server.json');
    expect(t.words).toEqual([
      { text: 'Hello', startMs: 100, endMs: 700, speaker: '1', estimated: false },
      { text: 'everyone.', startMs: 900, endMs: 1700, speaker: '1', estimated: false },
    ]);
  });

  it('whisper.cpp CLI -oj/-ojf: offsets in ms; tokens when present, else words spread over the segment', () => {
    const t = parse('whisper-cpp-cli.json');
    expect(t.words.map((w) => w.text).join(' ')).toBe('We agreed to hire two engineers. Please schedule the interviews.');
    expect(t.words.slice(6)).toEqual([
      { text: 'Please', startMs: 2500, endMs: 2900, speaker: null, estimated: false },
      { text: 'schedule', startMs: 2900, endMs: 3600, speaker: null, estimated: false },
      { text: 'the', startMs: 3600, endMs: 3800, speaker: null, estimated: false },
      { text: 'interviews.', startMs: 3800, endMs: 4800, speaker: null, estimated: false },
    ]);
    expect(t.words[0]).toMatchObject({ startMs: 0, estimated: true });
    expect(t.timing).toBe('mixed');
    expect(t.language).toBe('en');
  });

  it('WhisperX: whole words without leading spaces stay apart, each with its own speaker; a word without times falls back to the segment', () => {
    const json = {
      segments: [
        { start: 0.5, end: 2.0, text: 'Hello everyone', speaker: 'SPEAKER_00', words: [{ word: 'Hello', start: 0.5, end: 0.9, score: 0.9, speaker: 'SPEAKER_00' }, { word: 'everyone', start: 1.0, end: 1.6, score: 0.9, speaker: 'SPEAKER_01' }] },
        { start: 2.0, end: 3.0, text: 'in 2026', speaker: 'SPEAKER_01', words: [{ word: 'in', start: 2.0, end: 2.2, speaker: 'SPEAKER_01' }, { word: '2026' }] },
      ],
      language: 'en',
    };
    const t = parseTranscript(utf8(JSON.stringify(json)));
    expect(t.words.map((w) => [w.text, w.speaker, w.estimated])).toEqual([
      ['Hello', 'SPEAKER_00', false],
      ['everyone', 'SPEAKER_01', false],
      ['in', 'SPEAKER_01', true],
      ['2026', 'SPEAKER_01', true],
    ]);
    expect(t.words[1]).toMatchObject({ startMs: 1000, endMs: 1600 });
    expect(t.speakers).toEqual(['SPEAKER_00', 'SPEAKER_01']);
  });

  it('plain json ({text}) spreads words over the duration', () => {
    const t = parseTranscript(utf8('{"text": "one two three four", "duration": 8}'));
    expect(t.words.map((w) => [w.text, w.startMs])).toEqual([
      ['one', 0],
      ['two', 1684], // 8 s * (3+1) / 19
      ['three', 3368],
      ['four', 5895],
    ]);
  });
});

describe('Speaker: text lines', () => {
  it('`Name: text` lines; continuation lines stay with the speaker; timed at a nominal speaking rate, all estimated', () => {
    const t = parse('speakers.txt');
    expect(t.format).toBe('speaker_text');
    expect(turnsText(t)).toEqual([`${ZOE}: Good morning everyone.`, `${JOSE}: Morning! The budget review moves to Thursday. It was on Tuesday before.`, `${LINA}: 好的。Noted.`, `${ZOE}: Thanks, that's all.`]);
    expect(t.timing).toBe('estimated');
    // 19 words at 400 ms each.
    expect(t.durationMs).toBe(19 * 400);
    expectWellTimed(t);
  });

  it("Otter's `Name  0:12` headings give each turn its start; the title line before the first speaker is not speech", () => {
    const t = parse('otter.txt');
    expect(t.speakers).toEqual([ZOE, JOSE, LINA]);
    expect(t.turns.map((x) => x.startMs)).toEqual([0, 12_000, 65_000]);
    expect(t.words[0]!.text).toBe('Good');
    expectWellTimed(t);
  });

  it("Google Meet's transcript document: time marks alone on a line place the turns after them", () => {
    const t = parse('meet-transcript.txt');
    expect(turnsText(t)).toEqual([`${ZOE}: Let's begin with hiring.`, `${JOSE}: We agreed to hire two engineers.`, `${LINA}: The interviews are next week.`]);
    expect(t.turns[2]!.startMs).toBe(300_000);
    expect(t.turns[1]!.endMs).toBeLessThanOrEqual(300_000);
    expectWellTimed(t);
  });

  it('a time before the name (`[00:01:02] Name: text`) starts that turn', () => {
    const t = parseTranscript(utf8('[00:00:10] Zoë Martin: Hello there.\n[00:01:02] José Pérez: Hi.\n'));
    expect(t.turns.map((x) => [x.speaker, x.startMs])).toEqual([
      [ZOE, 10_000],
      [JOSE, 62_000],
    ]);
  });
});

describe('malformed files are refused with the line and what was wrong', () => {
  it.each([
    ['malformed-timestamp.vtt', 'vtt', 14, 'timestamp "00:01:xx.000" is not HH:MM:SS.mmm'],
    ['malformed-order.srt', 'srt', 6, 'the cue ends (00:00:03,000) before it starts (00:00:05,000)'],
    ['malformed-missing-blank.srt', 'srt', 5, '"-->" inside a cue\'s text (is a blank line missing before this cue?)'],
    ['malformed.json', 'verbose_json', 7, 'expected "," or "]", found "{"'],
  ])('%s', (name, format, line, problem) => {
    const e = errorOf(() => parse(name));
    expect({ format: e.format, line: e.line, problem: e.problem, kind: e.kind }).toEqual({ format, line, problem, kind: 'invalid' });
    expect(e.message).toContain(`line ${line}: ${problem}`);
  });

  it.each([
    ['WEBVTT\n\n00:00:01.000 --> \nHi\n', 3, 'cue timing "00:00:01.000 -->" has no end time'],
    ['WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n\n1:00:00:00.000 --> 1:00:00:01.000\nHo\n', 6, 'timestamp "1:00:00:00.000" is not HH:MM:SS.mmm'],
    ['WEBVTT\n\n00:00:61.000 --> 00:01:02.000\nHi\n', 3, 'timestamp "00:00:61.000" is not HH:MM:SS.mmm'],
    ['WEBVTT\n\njust some text\n', 3, 'expected a cue timing like "00:00:01.000 --> 00:00:04.000", found "just some text"'],
    ['WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi <00:00:0x.500>there\n', 4, 'timestamp "00:00:0x.500" is not HH:MM:SS.mmm'],
    ['WEBVTT\n\n999:00:00.000 --> 999:00:01.000\nHi\n', 3, 'timestamp "999:00:00.000" is beyond 100 hours'],
    ['1\n00:00:01,000 --> 00:00:02,000\nHi\n\n2\n00:00:03;000 --> 00:00:04,000\nHo\n', 6, 'timestamp "00:00:03;000" is not HH:MM:SS,mmm'],
  ])('%j', (text, line, problem) => {
    const e = errorOf(() => parseTranscript(utf8(text)));
    expect([e.line, e.problem]).toEqual([line, problem]);
  });

  it('a WebVTT file must start with "WEBVTT" (when the format is given)', () => {
    const e = errorOf(() => parseTranscript(utf8('WEBVTX\n\n00:00:01.000 --> 00:00:02.000\nHi\n'), { format: 'vtt' }));
    expect([e.line, e.problem]).toEqual([1, 'the first line must be "WEBVTT"']);
  });

  it('quotes at most 40 characters of the file, with control and bidi characters escaped', () => {
    const e = errorOf(() => parseTranscript(utf8(`WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n\n\u202e${'9'.repeat(80)} --> 00:00:04.000\nHo\n`)));
    expect(e.problem).toBe(`timestamp "\\u202e${'9'.repeat(38)}…" is not HH:MM:SS.mmm`);
  });

  it('a file that holds no words, JSON with the wrong shape, and a text that is no transcript', () => {
    expect(errorOf(() => parseTranscript(utf8('WEBVTT\n\nNOTE nothing\n'))).problem).toBe('the file holds no words');
    expect(errorOf(() => parseTranscript(utf8('{"segments": [{"start": "zero", "end": 1, "text": "x"}]}'))).problem).toBe('segments[0].start is not a number of seconds');
    expect(errorOf(() => parseTranscript(utf8('{"segments": 3, "text": "x"}'))).problem).toBe('"segments" is not a list');
    const prose = errorOf(() => parseTranscript(utf8('Dear team, the notes are attached. Regards, Zoë\n')));
    expect([prose.format, prose.line, prose.problem]).toEqual([null, null, 'its content is not WebVTT, SRT, Whisper JSON or "Speaker: text" lines']);
  });

  it('binary data inside a text file is refused with its line', () => {
    const e = errorOf(() => parseTranscript(Buffer.concat([Buffer.from('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nHi\n'), Buffer.from([0, 1, 2, 3])])));
    expect([e.line, e.problem]).toEqual([5, 'the file holds binary data (control characters), not text']);
  });
});

describe('limits', () => {
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);

  it('a file over the size limit is refused before it is read whole', async () => {
    const path = join(dir, 'big.vtt');
    writeFileSync(path, `WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${'word '.repeat(300)}\n`);
    await expect(readTranscriptFile(path, { limits: { maxBytes: 1024 } })).rejects.toMatchObject({ line: null, problem: 'the file is 2 KB, more than the 1 KB a transcript may be' });
    expect((await readTranscriptFile(path)).words).toHaveLength(300);
  });

  it('a FIFO is refused at once, not waited on', async () => {
    const path = join(dir, 'pipe.vtt');
    execFileSync('mkfifo', [path]);
    await expect(readTranscriptFile(path)).rejects.toMatchObject({ problem: 'it is not a regular file' });
  });

  it('the default limit is 50 MB: a 60 MB file is refused from its size alone (a sparse file: nothing is read)', async () => {
    const path = join(dir, 'huge.vtt');
    writeFileSync(path, 'WEBVTT\n\n');
    truncateSync(path, 60 * 1024 * 1024);
    expect(TRANSCRIPT_LIMITS.maxBytes).toBe(50 * 1024 * 1024);
    await expect(readTranscriptFile(path)).rejects.toMatchObject({ line: null, problem: 'the file is 60.0 MB, more than the 50.0 MB a transcript may be' });
  });

  it('lines, cues, words per cue, words and JSON depth are bounded', () => {
    const cues = (n: number, words = 'a b'): string => `WEBVTT\n\n${Array.from({ length: n }, (_, i) => `00:00:${String(i % 60).padStart(2, '0')}.000 --> 00:00:59.000\n${words}\n`).join('\n')}`;
    expect(errorOf(() => parseTranscript(utf8(`WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n${'x'.repeat(200)}\n`), { limits: { maxLineChars: 100 } }))).toMatchObject({ line: 4, problem: 'the line is longer than 100 characters' });
    expect(errorOf(() => parseTranscript(utf8(cues(11)), { limits: { maxCues: 10 } }))).toMatchObject({ line: 33, problem: 'the file holds more than 10 cues' });
    expect(errorOf(() => parseTranscript(utf8(cues(1, 'w '.repeat(21))), { limits: { maxWordsPerCue: 20 } }))).toMatchObject({ line: 4, problem: 'a cue holds more than the 20 words allowed' });
    expect(errorOf(() => parseTranscript(utf8(cues(6)), { limits: { maxWords: 11 } }))).toMatchObject({ line: 18, problem: 'the transcript holds more than 11 words' });
    const deep = `{"segments": ${'['.repeat(70)}${']'.repeat(70)}}`;
    expect(errorOf(() => parseTranscript(utf8(deep))).problem).toBe('the JSON is nested deeper than 64 levels');
    expect(errorOf(() => parseTranscript(utf8(`{"text": "x", "a": ${'['.repeat(100_000)}`))).problem).toBe('the JSON is nested deeper than 64 levels');
    const longCue = `1\n00:00:01,000 --> 00:00:02,000\n${'word\n'.repeat(30)}`;
    expect(errorOf(() => parseTranscript(utf8(longCue), { limits: { maxWordsPerCue: 20 } }))).toMatchObject({ line: 24, problem: 'a cue holds more than 20 lines' });
    const speakerLines = Array.from({ length: 5 }, (_, i) => `Zoë Martin: line ${i}`).join('\n');
    expect(errorOf(() => parseTranscript(utf8(speakerLines), { limits: { maxCues: 4 } }))).toMatchObject({ line: 5, problem: 'the file holds more than 4 turns' });
  });

  it('a long meeting (10,000 cues, 100,000 words) parses whole', () => {
    const parts = ['WEBVTT', ''];
    for (let i = 0; i < 10_000; i++) {
      const s = i * 2000;
      const stamp = (ms: number): string => new Date(ms).toISOString().slice(11, 23);
      parts.push(String(i + 1), `${stamp(s)} --> ${stamp(s + 2000)}`, `<v Speaker ${i % 7}>${'lorem ipsum dolor sit amet '.repeat(2)}</v>`, '');
    }
    const t = parseTranscript(utf8(parts.join('\n')));
    expect(t.words).toHaveLength(100_000);
    expect(t.speakers).toHaveLength(7);
    expect(t.durationMs).toBe(20_000_000);
  });
});

describe('sniffTranscript', () => {
  it.each([
    ['zoom.vtt', 'vtt'],
    ['teams.vtt', 'vtt'],
    ['meet.vtt', 'vtt'],
    ['features.vtt', 'vtt'],
    ['malformed-timestamp.vtt', 'vtt'],
    ['meeting.srt', 'srt'],
    ['malformed-order.srt', 'srt'],
    ['openai-verbose.json', 'verbose_json'],
    ['diarized.json', 'verbose_json'],
    ['whisper-server.json', 'verbose_json'],
    ['whisper-cpp-cli.json', 'verbose_json'],
    ['malformed.json', 'verbose_json'],
    ['speakers.txt', 'speaker_text'],
    ['otter.txt', 'speaker_text'],
    ['meet-transcript.txt', 'speaker_text'],
  ])('%s is %s, from its first bytes alone', (name, format) => {
    const bytes = fixture(name);
    expect(sniffTranscript(bytes)).toBe(format);
    expect(sniffTranscript(bytes.subarray(0, 300))).toBe(format);
  });

  it('a head cut inside a multi-byte character is still text', () => {
    const bytes = utf8('WEBVTT\n\n00:00:01.000 --> 00:00:02.000\n李娜: 我同意\n');
    expect(sniffTranscript(bytes.subarray(0, bytes.length - 3))).toBe('vtt');
  });

  it.each(FORMATS.map((f) => [f]))('the %s speech fixtures are not transcripts', (format) => {
    for (const p of PASSAGES) expect(sniffTranscript(readFileSync(fixturePath(p.name, format)).subarray(0, 8192))).toBeNull();
  });

  it('the video fixtures (MKV, MOV, AVI, MPEG-TS, WMA, MP4) are not transcripts', () => {
    const video = join(DIR, '..', 'video');
    const files = readdirSync(video);
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const f of files) expect([f, sniffTranscript(readFileSync(join(video, f)))]).toEqual([f, null]);
  });

  it('random binary is not a transcript (3,000 seeded heads)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 8192 }), (head) => sniffTranscript(head) === null),
      { numRuns: 3_000, seed: 17 },
    );
  });

  it.each([
    ['empty', ''],
    ['prose', 'Dear team,\nthe notes from today are attached.\nRegards, Zoë\n'],
    ['YAML', 'name: syntheo\nversion: 1\ndescription: meeting memory\nlicense: MIT\n'],
    ['JSON of another kind', '{"name": "syntheo", "version": "1.0.0"}'],
    ['CSV', 'start,end,speaker,text\n0,1,Zoë,Hello\n'],
    ['PDF', '%PDF-1.7\n%âãÏÓ\n1 0 obj\n'],
    ['HTML', '<!doctype html><html><body>WEBVTT</body></html>'],
  ])('%s is not a transcript', (_name, text) => {
    expect(sniffTranscript(utf8(text))).toBeNull();
  });

  it('detects a lone "Name: text" line and mostly capitalised names, but not lowercase keys or a name saying nothing', () => {
    expect(sniffTranscript(utf8('Zoë Martin: Hello.\n'))).toBe('speaker_text');
    expect(sniffTranscript(utf8('Zoe: hi\nbob: hello\nZoe: bye\n'))).toBe('speaker_text');
    expect(sniffTranscript(utf8('zoe: hi\nbob: hello\nzoe: bye\n'))).toBeNull();
    expect(sniffTranscript(utf8('A:'))).toBeNull();
  });
});

describe('properties', () => {
  const stamp = (ms: number): string => new Date(ms).toISOString().slice(11, 23);
  const cue = fc.record({
    start: fc.integer({ min: 0, max: 3_600_000 }),
    length: fc.integer({ min: 0, max: 20_000 }),
    speaker: fc.constantFrom(null, ZOE, JOSE, LINA, 'Ana-María O’Neil'),
    text: fc.array(fc.constantFrom('hello', 'wörld', '我同意。', 'it’s', '&amp;', 'a', 'budget,', '42'), { minLength: 1, maxLength: 30 }),
  });

  it('any well-formed WebVTT or SRT: every word kept, in its cue, times well ordered, speakers in first-appearance order', () => {
    fc.assert(
      fc.property(fc.array(cue, { minLength: 1, maxLength: 40 }), fc.constantFrom('vtt', 'srt'), (cues, format) => {
        const sorted = [...cues].sort((a, b) => a.start - b.start);
        const body = sorted
          .map((c, i) => {
            const timing = `${stamp(c.start)} --> ${stamp(c.start + c.length)}`;
            const text = `${c.speaker === null ? '' : `${c.speaker}: `}${c.text.join(' ')}`;
            return format === 'srt' ? `${i + 1}\n${timing.replace(/\./g, ',')}\n${text}\n` : `${timing}\n${text}\n`;
          })
          .join('\n');
        const t = parseTranscript(utf8(format === 'vtt' ? `WEBVTT\n\n${body}` : body));
        expect(t.format).toBe(format);
        expect(t.words.map((w) => w.text)).toEqual(sorted.flatMap((c) => c.text.map((w) => (w === '&amp;' && format === 'vtt' ? '&' : w))));
        expectWellTimed(t);
        const named = sorted.filter((c) => c.speaker !== null).map((c) => c.speaker!);
        expect(t.speakers).toEqual([...new Set(named)]);
        let w = 0;
        for (const c of sorted) {
          for (const _ of c.text) {
            const word = t.words[w++]!;
            expect(word.startMs).toBeGreaterThanOrEqual(c.start);
            expect(word.endMs).toBeLessThanOrEqual(c.start + c.length);
          }
        }
      }),
      { numRuns: 150, seed: 17 },
    );
  });
});
