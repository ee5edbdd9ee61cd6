import { sqliteTable, text, integer, index, type AnySQLiteColumn } from 'drizzle-orm/sqlite-core';

export const folders = sqliteTable(
  'folders',
  {
    id: text('id').primaryKey(),
    /** `Parent/Child`, unique, case preserved; every parent path exists as its own row. */
    path: text('path').notNull().unique(),
    name: text('name').notNull(),
    parentId: text('parent_id').references((): AnySQLiteColumn => folders.id, { onDelete: 'cascade' }),
    /** Meetings directly in this folder, kept by triggers (migration 0004): list_folders without counting. */
    meetingCount: integer('meeting_count').notNull().default(0),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    // Children of a folder (creating and listing trees); subtrees use the unique index on path as a range.
    index('folders_parent_idx').on(t.parentId),
  ],
);

export type FolderRow = typeof folders.$inferSelect;
