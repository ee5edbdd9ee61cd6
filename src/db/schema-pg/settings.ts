import { pgTable, text } from 'drizzle-orm/pg-core';

/** The app's configuration (`syntheo config`). Secrets are never stored here. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: text('updated_at').notNull(),
});

export type SettingRow = typeof settings.$inferSelect;
