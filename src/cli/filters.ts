import { optString, type OptionSpec, type OptionValues } from './framework.js';
import type { MeetingFilter } from '../db/store.js';

/** The meeting filters of `meetings list` and `search` (the MCP tools' folder_path, series_id, from, to, participant). */
export const MEETING_FILTER_OPTIONS: Record<string, OptionSpec> = {
  folder: { type: 'string', value: 'PATH', description: 'Folder path (see `syntheo folders list`), subfolders included' },
  series: { type: 'string', value: 'ID', description: 'Recurring series ID (ser_...)' },
  from: { type: 'string', value: 'DATE', description: 'Meetings started at or after this ISO date or date-time' },
  to: { type: 'string', value: 'DATE', description: 'Meetings started at or before this ISO date (whole day) or date-time' },
  participant: { type: 'string', value: 'P', description: "Fragment of a participant's name or e-mail" },
};

export function meetingFilter(o: OptionValues): Omit<MeetingFilter, 'query'> {
  return { folderPath: optString(o, 'folder'), seriesId: optString(o, 'series'), from: optString(o, 'from'), to: optString(o, 'to'), participant: optString(o, 'participant') };
}

/** Whether any meeting filter was given (for a "nothing matches these filters" message). */
export function hasMeetingFilter(o: OptionValues): boolean {
  return Object.keys(MEETING_FILTER_OPTIONS).some((k) => o[k] !== undefined);
}
