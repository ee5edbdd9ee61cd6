import { describe, expect, it } from 'vitest';
import type { NewWord } from '../../src/db/queries/transcripts.js';
import { OverlapMerger, joinOverlap } from '../../src/worker/chunking/merge.js';
import { chunkPlan } from '../../src/worker/chunking/plan.js';
import { runBuilt } from './bounded.js';

// The overlap join on words laid out by hand: what each chunk "heard" around a boundary.

const w = (text: string, startMs: number, endMs = startMs + 250): NewWord => ({ text, startMs, endMs, speaker: null });
const texts = (words: NewWord[]) => words.map((x) => x.text).join(' ');

/** One sentence, 300 ms a word, from `at`. */
function said(sentence: string, at: number): NewWord[] {
  return sentence.split(' ').map((t, i) => w(t, at + i * 300));
}

function run(chunks: { words: NewWord[]; startMs: number; endMs: number }[], overlapMs: number): NewWord[] {
  const m = new OverlapMerger(overlapMs);
  const out = chunks.flatMap((c) => m.push(c.words, c));
  return [...out, ...m.finish()];
}

describe('OverlapMerger', () => {
  // Chunk A covers 0-10 s, chunk B 6-16 s: they share 6-10 s.
  const sentence = said('the budget review moves to thursday and maria sends the numbers', 4_500);

  it('keeps each word heard by both chunks once, and times increasing', () => {
    const a = sentence.filter((x) => x.startMs! < 10_000);
    const b = sentence.filter((x) => x.startMs! >= 6_000);
    const out = run(
      [
        { words: a, startMs: 0, endMs: 10_000 },
        { words: b, startMs: 6_000, endMs: 16_000 },
      ],
      4_000,
    );
    expect(texts(out)).toBe(texts(sentence));
    for (let i = 1; i < out.length; i++) expect(out[i]!.startMs!).toBeGreaterThan(out[i - 1]!.startMs!);
  });

  it('takes each word from the chunk that heard it away from its edge', () => {
    // A heard its last word garbled (cut audio); B heard its first word garbled (no context).
    const a = [...sentence.filter((x) => x.startMs! < 9_700), w('numb', 9_700)];
    const b = [w('ursday', 6_000), ...sentence.filter((x) => x.startMs! >= 6_300)];
    const out = run(
      [
        { words: a, startMs: 0, endMs: 10_000 },
        { words: b, startMs: 6_000, endMs: 16_000 },
      ],
      4_000,
    );
    expect(texts(out)).toBe(texts(sentence));
  });

  it('cuts in the middle of the overlap by time when the chunks agree on no word there', () => {
    const a = [w('alpha', 6_500), w('bravo', 7_500), w('charlie', 8_500)];
    const b = [w('alfa', 6_520), w('brave', 7_510), w('charles', 8_480), w('delta', 11_000)];
    const joined = joinOverlap(a, b, 6_000, 10_000);
    expect(texts(joined.fromPrevious)).toBe('alpha bravo');
    expect(texts(joined.fromNext)).toBe('charles delta');
  });

  it('keeps words only one chunk heard in the overlap', () => {
    expect(texts(run([{ words: [w('one', 1_000), w('two', 8_000)], startMs: 0, endMs: 10_000 }, { words: [w('three', 12_000)], startMs: 6_000, endMs: 16_000 }], 4_000))).toBe('one two three');
    expect(texts(run([{ words: [w('one', 1_000)], startMs: 0, endMs: 10_000 }, { words: [w('two', 7_000), w('three', 12_000)], startMs: 6_000, endMs: 16_000 }], 4_000))).toBe('one two three');
  });

  it('does not mistake a repeated common word for the same word', () => {
    // "the" twice in the overlap, 900 ms apart: only the match at the same time counts.
    const all = said('and the plan and the survey', 6_000);
    const a = all.filter((x) => x.startMs! < 9_800);
    const b = all.filter((x) => x.startMs! >= 6_000);
    expect(texts(run([{ words: a, startMs: 0, endMs: 10_000 }, { words: b, startMs: 6_000, endMs: 16_000 }], 4_000))).toBe(texts(all));
  });

  it('holds back the tail of the newest chunk until the next one decides it', () => {
    const m = new OverlapMerger(4_000);
    expect(texts(m.push([w('early', 1_000), w('late', 8_000)], { startMs: 0, endMs: 10_000 }))).toBe('early');
    expect(texts(m.finish())).toBe('late');
  });
});

describe('joinOverlap on words stacked at one instant (a broken server)', () => {
  const join = (n: number) =>
    runBuilt(`
      const { joinOverlap } = await load('worker/chunking/merge.js');
      const words = Array.from({ length: ${n} }, () => ({ text: 'yes', startMs: 10_000, endMs: 10_200, speaker: null }));
      const { fromPrevious, fromNext } = joinOverlap(words, words.map((w) => ({ ...w, speaker: 'B' })), 8_000, 12_000);
      done([fromPrevious.length, fromNext.length, fromNext[0]?.speaker]);`);

  it('400 identical co-timed words: the longest agreeing run, found without a cubic search', () => {
    // Every pair agrees; the main diagonal is the longest run, and its first pair wins the tie.
    expect(join(400)).toEqual([0, 400, 'B']);
  });

  it('5,000 of them: past the comparison bound the chunks are cut by time', () => {
    expect(join(5_000)).toEqual([0, 5_000, 'B']);
  });
});

describe('chunkPlan', () => {
  const openai = { chunkSeconds: 600, maxUploadBytes: 24 * 1024 * 1024 };
  it('sends short, small recordings in one request', () => {
    expect(chunkPlan({ durationMs: 600_000, size: 10_000_000 }, openai)).toBeNull();
  });
  it('cuts long ones into chunk_seconds with a 4 s overlap', () => {
    expect(chunkPlan({ durationMs: 2 * 3600_000, size: 50_000_000 }, openai)).toEqual({ chunkMs: 600_000, overlapMs: 4_000, chunks: 12, reason: 'duration' });
  });
  it('cuts large ones so that each chunk (16 kHz mono WAV) fits max_upload_mb', () => {
    // 1 MiB holds 30 s of 16 kHz 16-bit mono after the slack; minus the overlap.
    expect(chunkPlan({ durationMs: 300_000, size: 5_000_000 }, { chunkSeconds: 600, maxUploadBytes: 1024 * 1024 })).toEqual({ chunkMs: 26_720, overlapMs: 4_000, chunks: 12, reason: 'size' });
  });
  it('keeps the overlap under a quarter of tiny chunks', () => {
    expect(chunkPlan({ durationMs: 20_000, size: 1 }, { chunkSeconds: 8, maxUploadBytes: 1 << 30 })).toMatchObject({ chunkMs: 8_000, overlapMs: 2_000, chunks: 3 });
  });
});
