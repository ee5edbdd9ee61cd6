import { PAGE_RULES, clampPage } from '../../db/queries/pagination.js';
import type { TranscriptWord } from '../../db/queries/types.js';
import { wordTable } from '../../render/answers.js';
import { invalidParams } from '../errors.js';
import { variable, type ResourceDefinition } from './resource.js';

export const transcriptResource: ResourceDefinition = {
  name: 'meeting-transcript',
  uriTemplate: 'syntheo://meetings/{meeting_id}/transcript{?offset,limit,word_timings}',
  title: 'Meeting transcript page',
  description: `A bounded page of the transcript as plain text: offset in words (default 0), limit defaults to ${PAGE_RULES.transcript.defaultLimit} and is clamped to ${PAGE_RULES.transcript.maxLimit} words. One line per speaker turn with its start time; word_timings=true gives one tab-separated line per word (index, start_ms, end_ms, speaker, text) instead.`,
  mimeType: 'text/plain',
  read: async (store, vars) => {
    const page = clampPage(PAGE_RULES.transcript, numberParam(vars, 'limit'), numberParam(vars, 'offset'));
    const wordTimings = booleanParam(vars, 'word_timings');
    const result = await store.transcripts.page(variable(vars, 'meeting_id') ?? '', page, { wordTimings });
    return wordTimings ? wordTable(result.words as TranscriptWord[]) : result.text;
  },
};

function booleanParam(vars: Parameters<typeof variable>[0], name: string): boolean {
  const raw = variable(vars, name)?.trim().toLowerCase();
  if (raw === undefined || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw invalidParams(`${name} must be true or false, got "${raw.slice(0, 40)}".`);
}

/** A query value must be a number (clamped later, like the tools' limit and offset); absent or empty means the default. */
function numberParam(vars: Parameters<typeof variable>[0], name: string): number | undefined {
  const raw = variable(vars, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw invalidParams(`${name} must be a number of words, got "${raw.slice(0, 40)}".`);
  return value;
}
