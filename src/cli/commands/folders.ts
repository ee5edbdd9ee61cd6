import { optString, pageFlags, pageOptions, type CommandSpec } from '../framework.js';
import { pageFooter, table } from '../text.js';
import { folderAncestry, normalizeFolderPath } from '../../db/model/folders.js';
import { PAGE_RULES, clampPage } from '../../db/queries/pagination.js';

const list: CommandSpec = {
  name: 'folders list',
  summary: 'List folders as a tree, empty ones included',
  description: 'List folders in tree order (a folder, then its subfolders), with the number of meetings directly in each.\nSame paging as the MCP tool list_folders. Pass a PATH to `syntheo meetings list --folder`.',
  options: {
    query: { type: 'string', value: 'Q', description: 'Fragment of the folder path, case-insensitive' },
    ...pageOptions(PAGE_RULES.folders, 'folders'),
  },
  examples: ['syntheo folders list', 'syntheo folders list --query launch', "syntheo --json folders list | jq -r '.data[].path'"],
  async run(ctx) {
    const { limit, offset } = pageFlags(ctx.options);
    const store = await ctx.store({ create: false });
    const query = optString(ctx.options, 'query');
    const result = await store.folders.list({ query }, clampPage(PAGE_RULES.folders, limit, offset));
    const p = result.pagination;
    const text =
      p.total === 0
        ? query
          ? `No folder path contains "${query}".`
          : 'No folders yet. Create one with `syntheo folders create PATH`.'
        : [
            result.folders.length
              ? table(result.folders, [
                  { header: 'PATH', value: (f) => f.path },
                  { header: 'MEETINGS', value: (f) => String(f.meeting_count), align: 'right' },
                ])
              : '',
            pageFooter(p, 'folder'),
          ]
            .filter(Boolean)
            .join('\n\n');
    return { data: result.folders, pagination: p, text };
  },
};

const create: CommandSpec = {
  name: 'folders create',
  summary: 'Create a folder (and its missing parents)',
  description: 'Create a folder; missing parent folders are created too. Segments are separated by "/".\nCreating a folder that exists is not an error. Creates the database when missing.',
  positionals: [{ name: 'path', required: true, description: 'Folder path, e.g. Projects/Launch/Design' }],
  examples: ['syntheo folders create Projects/Launch', 'syntheo folders create "Customers/ACME Corp/Calls"'],
  async run(ctx) {
    // Checked before the database is created: a bad path leaves nothing behind.
    const path = normalizeFolderPath(ctx.positionals[0]!);
    const store = await ctx.store({ create: true });
    const ancestry = folderAncestry(path);
    const existing = await store.folders.existing(ancestry);
    const folder = await store.folders.ensure(path);
    const created = ancestry.filter((p) => !existing.has(p));
    const text = created.length === 0 ? `Folder ${folder.path} already exists (${folder.id}).` : `Created ${created.join(', ')} (${folder.path} is ${folder.id}).`;
    return { data: { id: folder.id, path: folder.path, created }, text };
  },
};

export const commands: CommandSpec[] = [list, create];
