import { sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** The app's configuration (`syntheo config`). Secrets are never stored here. */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: text('updated_at').notNull(),
});

export type SettingRow = typeof settings.$inferSelect;
