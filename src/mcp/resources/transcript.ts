import { PAGE_RULES, clampPage } from '../../db/queries/pagination.js';
import { getTranscriptPageOrThrow } from '../../db/queries/transcripts.js';
import { invalidParams } from '../errors.js';
import { variable, type ResourceDefinition } from './resource.js';

export const transcriptResource: ResourceDefinition = {
  name: 'meeting-transcript',
  uriTemplate: 'syntheo://meetings/{meeting_id}/transcript{?offset,limit}',
  title: 'Meeting transcript page',
  description: `A bounded page of the transcript as plain text: offset in words (default 0), limit defaults to ${PAGE_RULES.transcript.defaultLimit} and is clamped to ${PAGE_RULES.transcript.maxLimit} words. Use get_meeting_transcript to get the timed words.`,
  mimeType: 'text/plain',
  read: (sqlite, vars) => {
    const page = clampPage(PAGE_RULES.transcript, numberParam(vars, 'limit'), numberParam(vars, 'offset'));
    return getTranscriptPageOrThrow(sqlite, variable(vars, 'meeting_id') ?? '', page).text;
  },
};

/** A query value must be a number (clamped later, like the tools' limit and offset); absent or empty means the default. */
function numberParam(vars: Parameters<typeof variable>[0], name: string): number | undefined {
  const raw = variable(vars, name)?.trim();
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw invalidParams(`${name} must be a number of words, got "${raw.slice(0, 40)}".`);
  return value;
}
