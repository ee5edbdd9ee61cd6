import * as v from 'valibot';
import { searchText } from '../../render/answers.js';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { PaginationSchema, SearchHitSchema, limitParam, offsetParam, optionalString, requiredString } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const searchTranscriptsTool = defineTool({
  name: 'search_transcripts',
  title: 'Search what was said',
  description:
    'Full-text search of transcripts, summaries and notes: passages with every word, exact phrase first. ' +
    "A transcript hit's offset and start_ms point at the first matched word. An empty list means nothing matched: don't invent one.",
  input: v.object({
    query: requiredString('Plain words.'),
    folder_path: optionalString('Path from list_folders.'),
    series_id: optionalString('ser_... ID.'),
    from: optionalString('Started on or after (ISO date).'),
    to: optionalString('Started on or before (ISO date).'),
    participant: optionalString('Name or e-mail fragment.'),
    limit: limitParam(PAGE_RULES.search),
    offset: offsetParam(),
  }),
  output: v.object({ hits: v.array(SearchHitSchema), pagination: PaginationSchema }),
  annotations: READ_ONLY,
  text: searchText,
  handler: (store, a) =>
    store.search.transcripts(
      { query: a.query, folderPath: a.folder_path, seriesId: a.series_id, from: a.from, to: a.to, participant: a.participant },
      { limit: a.limit, offset: a.offset },
    ),
});
