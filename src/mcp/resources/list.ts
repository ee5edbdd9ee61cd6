import type { ListResourcesResult } from '@modelcontextprotocol/server';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import type { Store } from '../../db/store.js';
import { invalidParams } from '../errors.js';
import { meetingUri } from './resource.js';

/** resources/list: recent meetings, newest first, 20 a page; the cursor is the numeric offset of the page. */
export async function listMeetingResources(store: Store, cursor: string | undefined): Promise<ListResourcesResult> {
  const offset = parseCursor(cursor);
  const { meetings, pagination } = await store.meetings.list({}, { limit: PAGE_RULES.resources.defaultLimit, offset });
  const result: ListResourcesResult = {
    resources: meetings.map((m) => ({
      uri: meetingUri(m.id),
      name: m.title,
      title: m.title,
      description: `Meeting of ${m.started_at}${m.folder_path ? ` in ${m.folder_path}` : ''}`,
      mimeType: 'text/markdown',
    })),
  };
  if (pagination.next_offset !== undefined) result.nextCursor = String(pagination.next_offset);
  return result;
}

function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^\d{1,15}$/.test(cursor)) throw invalidParams(`Invalid cursor "${cursor.slice(0, 40)}": pass the nextCursor of the previous resources/list page, or no cursor for the first page.`);
  return Number(cursor);
}
