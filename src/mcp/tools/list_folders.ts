import * as v from 'valibot';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { FolderSchema, PaginationSchema, limitParam, offsetParam, optionalString } from '../schema.js';
import { READ_ONLY, defineTool, lazy } from '../tool.js';

// The query module loads with the first call, not at start-up (see ToolDefinition).
const queries = lazy(() => import('../../db/queries/folders.js'));

export const listFoldersTool = defineTool({
  name: 'list_folders',
  title: 'List folders',
  description:
    'Lists the folders meetings are filed in, sorted by path, including empty folders and parent folders. ' +
    'Each folder has path (e.g. Projets/Lancement), name, parent_path (null at the top level) and meeting_count. ' +
    'Pass a returned path as folder_path of list_meetings (subfolders are included) or import_recording.',
  input: v.object({
    query: optionalString('Fragment of the folder path, case-insensitive.'),
    limit: limitParam(PAGE_RULES.folders),
    offset: offsetParam(),
  }),
  output: v.object({ folders: v.array(FolderSchema), pagination: PaginationSchema }),
  annotations: READ_ONLY,
  handler: async (sqlite, a) => (await queries()).listFolders(sqlite, { query: a.query }, { limit: a.limit, offset: a.offset }),
});
