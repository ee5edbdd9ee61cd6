import type { JobOutcome } from '../../db/store.js';
import { HttpClientError } from '../clients/http.js';
import { redactSecrets } from '../errors.js';
import { ContextTooSmallError, summarizeTranscript } from '../map-reduce.js';
import type { StageContext } from './context.js';

// Stage 3: a Markdown summary and action items from the LLM. Whatever happens here, the import is
// `done`: the transcript is what was asked for; a failed summary says why in `error`.

/**
 * Below this many words there is nothing to summarise (`skipped_too_short`): about five seconds of
 * speech. Not more: a dozen-word voice memo ("ask Maria for the revised numbers by Wednesday") still
 * holds an action item worth extracting.
 */
export const MIN_SUMMARY_WORDS = 12;

export async function summarizeMeeting(ctx: StageContext): Promise<JobOutcome> {
  const outcome = await decide(ctx);
  // The note is stored and shown: whatever a server said in it, the API keys stay out.
  if (outcome.note !== undefined) outcome.note = redactSecrets(outcome.note, ctx.config);
  await ctx.store.jobs.complete(ctx.lease, ctx.job.meetingId, outcome);
  return outcome;
}

async function decide(ctx: StageContext): Promise<JobOutcome> {
  const llm = ctx.config.llm;
  if (llm.model === null) return { summaryStatus: 'skipped_no_model' };
  // 0 when the meeting has no transcript.
  if ((await ctx.store.transcripts.wordCount(ctx.job.meetingId)) < MIN_SUMMARY_WORDS) return { summaryStatus: 'skipped_too_short' };
  if (llm.url === null)
    return failed('llm.model is set but llm.url is not. Set it with `syntheo config set llm.url http://127.0.0.1:11434` (Ollama) or the SYNTHEO_LLM_URL environment variable of the worker.');

  const words = ((await ctx.store.transcripts.allWords(ctx.job.meetingId)) ?? []).map(([, text, , , speaker]) => ({ text, speaker }));
  const title = (await ctx.store.meetings.title(ctx.job.meetingId)) ?? undefined;
  const started = Date.now();
  try {
    const result = await summarizeTranscript(words, {
      url: llm.url,
      model: llm.model,
      apiKey: llm.apiKey ?? undefined,
      timeoutMs: llm.timeoutMs,
      contextTokens: llm.contextTokens,
      retry: ctx.tuning.retry,
      meetingTitle: title,
      signal: ctx.signal,
      logger: ctx.log,
      dispatcher: ctx.http,
    });
    ctx.log.debug({ parts: result.parts, requests: result.requests, ms: Date.now() - started, actionItems: result.summary.actionItems.length }, 'summary made');
    return { summaryStatus: 'done', summary: { markdown: result.summary.summaryMarkdown, actionItems: result.summary.actionItems } };
  } catch (error) {
    if (ctx.signal.aborted) throw ctx.signal.reason;
    if (error instanceof HttpClientError || error instanceof ContextTooSmallError) return failed(error.message);
    ctx.log.error({ err: error }, 'summary failed unexpectedly');
    return failed(`unexpected error (${error instanceof Error ? error.message : String(error)}); see the worker's log.`);
  }
}

function failed(reason: string): JobOutcome {
  return { summaryStatus: 'failed', note: `The import succeeded (the transcript is stored) but the summary failed: ${reason}` };
}
