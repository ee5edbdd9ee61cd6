// A domain error in the terms of the person at the terminal: the commands and flags that take the IDs
// it names (the sentences are src/error-wording.ts's; the MCP server gives its own words).
import { wordError, type Words } from '../error-wording.js';
import type { SyntheoError } from '../errors.js';

const CLI_WORDS: Words = {
  field: { file_path: 'FILE', request_key: '--key' },
  listMeetings: '`syntheo meetings list`',
  getMeeting: '`syntheo meetings get`',
  listFolders: '`syntheo folders list`',
  listProposals: '`syntheo proposals list`',
  seriesHistory: '`syntheo meetings history`',
  meetingTranscript: '`syntheo meetings transcript`',
  jobIdSource: 'the job ID printed by `syntheo imports add` (see `syntheo imports list`)',
  retryImport: 'run the same command again',
  duplicateNext: (meetingId) => ` (\`syntheo meetings get ${meetingId}\`); to import the same content again anyway, add --allow-duplicate.`,
};

export function cliMessage(error: SyntheoError): string {
  return wordError(error, CLI_WORDS);
}
