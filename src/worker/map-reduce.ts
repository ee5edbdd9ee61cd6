import { transcriptText } from '../db/model/transcripts.js';
import { asContextLengthError, buildSummaryPrompt, combineSummaries, estimateTokens, summarize, type ChatMessage, type LlmOptions, type LlmSummary } from './clients/llm.js';

// A summary within the model's context: the whole transcript in one request when it fits
// llm.context_tokens, else map-reduce: consecutive parts with a little overlap are summarised one by
// one, then the partial summaries are combined (in a tree when they do not fit together). A
// context-length error from the server splits the request that caused it instead of failing.

export interface SpokenWord {
  text: string;
  speaker: string | null;
}

export interface MapReduceOptions extends LlmOptions {
  contextTokens: number;
}

export interface MapReduceResult {
  summary: LlmSummary;
  /** Transcript parts summarised separately (1 = one request). */
  parts: number;
  requests: number;
}

/** The part of the context kept for the answer. */
export function answerReserve(contextTokens: number): number {
  return Math.min(2048, Math.floor(contextTokens / 4));
}

/** Parts share this fraction of their words with the part before, so a point made across a cut is seen whole once. */
const PART_OVERLAP = 0.1;
const MAX_OVERLAP_WORDS = 200;
/** A part this small that still does not fit means the context cannot hold a transcript at all. */
const MIN_PART_WORDS = 8;

const promptTokens = (messages: ChatMessage[]): number => messages.reduce((n, m) => n + estimateTokens(m.content) + 4, 0);

export class ContextTooSmallError extends Error {
  override readonly name = 'ContextTooSmallError';
}

export async function summarizeTranscript(words: readonly SpokenWord[], opts: MapReduceOptions): Promise<MapReduceResult> {
  let budget = opts.contextTokens - answerReserve(opts.contextTokens);
  let requests = 0;
  const whole = transcriptText(words);
  let wholeTokens: number | null = null;
  const wholePrompt = promptTokens(buildSummaryPrompt({ kind: 'transcript', transcript: whole, meetingTitle: opts.meetingTitle }));
  if (wholePrompt <= budget) {
    try {
      requests++;
      return { summary: await summarize(whole, opts), parts: 1, requests };
    } catch (error) {
      const tooLong = asContextLengthError(error);
      if (tooLong === null) throw error;
      opts.logger?.info({ reason: tooLong.message }, 'transcript did not fit the model context after all; summarising it in parts');
      // Believe the server: its own context size when it says, else at most half of what it refused.
      if (tooLong.contextTokens !== null) budget = Math.min(budget, tooLong.contextTokens - answerReserve(tooLong.contextTokens));
      else wholeTokens = estimateTokens(whole);
    }
  }

  const instructions = promptTokens(buildSummaryPrompt({ kind: 'part', transcript: '', part: 99, parts: 99, meetingTitle: opts.meetingTitle }));
  let partTokens = budget - instructions;
  if (partTokens < 32)
    throw new ContextTooSmallError(
      `llm.context_tokens (${opts.contextTokens}) leaves no room for the transcript once the instructions (~${instructions} tokens) and the answer (~${answerReserve(opts.contextTokens)} tokens) are counted. Set it to the model's real context size.`,
    );
  if (wholeTokens !== null) partTokens = Math.min(partTokens, Math.max(32, Math.floor(wholeTokens / 2)));
  const ranges = planParts(words, partTokens * 4);
  const partials: LlmSummary[] = [];
  for (let i = 0; i < ranges.length; i++) {
    const [from, to] = ranges[i]!;
    try {
      requests++;
      partials.push(await summarize(transcriptText(words.slice(from, to)), { ...opts, part: { index: i + 1, of: ranges.length } }));
    } catch (error) {
      const tooLong = asContextLengthError(error);
      if (tooLong === null || to - from < 2 * MIN_PART_WORDS) throw tooLong ?? error;
      // The server counts tokens differently from our estimate: halve this part and go on.
      const half = from + Math.floor((to - from) / 2);
      ranges.splice(i, 1, [from, half], [Math.max(from, half - overlapWords(half - from)), to]);
      i--;
    }
  }
  opts.logger?.debug({ parts: partials.length }, 'parts summarised; combining');
  const combine = async (list: LlmSummary[]): Promise<LlmSummary> => {
    if (list.length === 1) return list[0]!;
    const fits = promptTokens(buildSummaryPrompt({ kind: 'combine', partials: list, meetingTitle: opts.meetingTitle })) <= budget;
    if (fits || list.length === 2) {
      try {
        requests++;
        return await combineSummaries(list, opts);
      } catch (error) {
        if (asContextLengthError(error) === null || list.length === 2) throw error;
      }
    }
    const mid = Math.ceil(list.length / 2);
    return combine([await combine(list.slice(0, mid)), await combine(list.slice(mid))]);
  };
  return { summary: await combine(partials), parts: partials.length, requests };
}

function overlapWords(partWords: number): number {
  return Math.min(MAX_OVERLAP_WORDS, Math.floor(partWords * PART_OVERLAP));
}

/** Word ranges [from, to) whose text stays under maxChars, each starting a little before the previous one ends. */
export function planParts(words: readonly SpokenWord[], maxChars: number): [number, number][] {
  const ranges: [number, number][] = [];
  let from = 0;
  while (from < words.length) {
    let chars = 0;
    let to = from;
    let speaker: string | null | undefined;
    while (to < words.length) {
      const w = words[to]!;
      const cost = w.text.length + 1 + (w.speaker !== speaker && w.speaker !== null ? w.speaker.length + 3 : 0);
      if (to > from && chars + cost > maxChars) break;
      chars += cost;
      speaker = w.speaker;
      to++;
    }
    ranges.push([from, to]);
    if (to >= words.length) break;
    from = Math.max(from + 1, to - overlapWords(to - from));
  }
  return ranges;
}
