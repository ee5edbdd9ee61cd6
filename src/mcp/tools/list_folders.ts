import * as v from 'valibot';
import { foldersText } from '../../render/answers.js';
import { PAGE_RULES } from '../../db/queries/pagination.js';
import { fitList } from '../../render/budget.js';
import { FolderSchema, PaginationSchema, limitParam, offsetParam, optionalString } from '../schema.js';
import { READ_ONLY, defineTool } from '../tool.js';

export const listFoldersTool = defineTool({
  name: 'list_folders',
  title: 'List folders',
  description: 'Folders sorted by path, empty and parent ones included. Pass a path as folder_path of list_meetings.',
  input: v.object({
    query: optionalString('Path fragment.'),
    limit: limitParam(PAGE_RULES.folders),
    offset: offsetParam(),
  }),
  output: v.object({ folders: v.array(FolderSchema), pagination: PaginationSchema }),
  annotations: READ_ONLY,
  text: foldersText,
  handler: async (store, a) => {
    const { folders, pagination } = await store.folders.list({ query: a.query }, { limit: a.limit, offset: a.offset });
    const fitted = fitList(folders, pagination);
    return { folders: fitted.items, pagination: fitted.pagination };
  },
});
