import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandSpec } from '../framework.js';
import { plural, table } from '../text.js';
import { InvalidInputError } from '../../errors.js';
import { loadMeetings } from '../../db/queries/export.js';

const load: CommandSpec = {
  name: 'load',
  summary: 'Restore meetings from an export (JSON)',
  description:
    'Restore meetings from a file written by `syntheo meetings export` (or the MCP tool export_meeting): one\nrecord, an array of records, or {"meetings": [...]}. IDs, folders and series are kept. A meeting that\nalready exists is replaced by the file\'s version, so loading the same file twice changes nothing.\nAll meetings of the file are restored in one transaction, or none. Creates the database when missing.',
  positionals: [{ name: 'file', required: true, description: 'Export file (JSON), or - to read stdin' }],
  examples: ['syntheo load backup.json', 'syntheo meetings export mtg_0123456789abcdef | syntheo --db other.db load -'],
  async run(ctx) {
    const file = ctx.positionals[0]!;
    const source = file === '-' ? 'stdin' : resolve(file);
    const input = parseJson(readInput(file, source), source);
    const db = ctx.openDb({ create: true });
    const result = await loadMeetings(db.sqlite, input);
    const n = result.meetings.length;
    const text =
      n === 0
        ? `Nothing to restore: ${source} holds no meetings.`
        : [`Restored ${plural(n, 'meeting')} from ${source} into ${db.path}:`, '', table(result.meetings, [
            { header: 'ID', value: (m) => m.id },
            { header: 'TITLE', value: (m) => m.title, max: 60 },
            { header: 'WORDS', value: (m) => String(m.words), align: 'right' },
          ])].join('\n');
    return { data: { source, database: db.path, meetings: result.meetings }, text };
  },
};

function readInput(file: string, shown: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'it does not exist' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unknown error');
    throw new InvalidInputError(`Cannot read ${shown}: ${why}.`);
  }
}

function parseJson(text: string, shown: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text; say where instead.
    const at = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new InvalidInputError(`${shown} is not valid JSON${at ? ` (error at character ${at})` : ''}. Give a file written by \`syntheo meetings export\`.`);
  }
}

export const commands: CommandSpec[] = [load];
