import { pgTable, text, integer, index, type AnyPgColumn } from 'drizzle-orm/pg-core';

// Mirrors src/db/schema/folders.ts; times stay ISO 8601 text (fixed width) so both engines answer byte for byte alike.
export const folders = pgTable(
  'folders',
  {
    id: text('id').primaryKey(),
    /** `Parent/Child`, unique, case preserved; every parent path exists as its own row. */
    path: text('path').notNull().unique(),
    name: text('name').notNull(),
    parentId: text('parent_id').references((): AnyPgColumn => folders.id, { onDelete: 'cascade' }),
    /** Meetings directly in this folder, kept by triggers (migration 0002): list_folders without counting. */
    meetingCount: integer('meeting_count').notNull().default(0),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    // Children of a folder (creating and listing trees); subtrees use the unique index on path as a range.
    index('folders_parent_idx').on(t.parentId),
    // list_folders `query`: a case-insensitive fragment of the path (ILIKE through pg_trgm).
    index('folders_path_trgm_idx').using('gin', t.path.op('gin_trgm_ops')),
  ],
);

export type FolderRow = typeof folders.$inferSelect;
