import * as v from 'valibot';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { PaginationSchema, SearchHitSchema, limitParam, offsetParam, optionalString, requiredString } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

const queries = lazy(() => import('../../db/queries/search.js'));

export const searchTranscriptsTool = defineTool({
  name: 'search_transcripts',
  title: 'Search what was said',
  description:
    'Full-text search over every transcript, summary and note: finds when something was discussed and what was said. ' +
    'A hit is a passage containing every word of query (the exact phrase ranks first), with meeting_id, title, started_at, ' +
    'the speaker, a snippet with the matched words in **bold**, and for transcripts the word offset to pass to get_meeting_transcript to read the passage in context. ' +
    'Optional filters, combined with AND: folder_path, series_id, from/to dates, participant. Quotes, *, - and NEAR are plain text. ' +
    "An empty list means nothing matched: say so, and don't invent one. Follow pagination.next_offset for more.",
  input: v.object({
    query: requiredString('Words to find, e.g. "budget review". Plain text: no operators.'),
    folder_path: optionalString('Only meetings in this folder (a path from list_folders), subfolders included.'),
    series_id: optionalString('Only meetings of this recurring series (ser_...).'),
    from: optionalString('Only meetings that started at or after this ISO 8601 date or date-time.'),
    to: optionalString('Only meetings that started at or before this ISO 8601 date (the whole day) or date-time.'),
    participant: optionalString("Only meetings with a participant whose name or e-mail contains this fragment."),
    limit: limitParam(PAGE_RULES.search),
    offset: offsetParam(),
  }),
  output: v.object({ hits: v.array(SearchHitSchema), pagination: PaginationSchema }),
  annotations: READ_ONLY,
  handler: async (sqlite, a) =>
    (await queries()).searchTranscripts(
      sqlite,
      { query: a.query, folderPath: a.folder_path, seriesId: a.series_id, from: a.from, to: a.to, participant: a.participant },
      { limit: a.limit, offset: a.offset },
    ),
});
