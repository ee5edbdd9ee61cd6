import { pgTable, text } from 'drizzle-orm/pg-core';

/** A recurring meeting (a weekly 1:1, a sprint review ...); meetings point to it. */
export const series = pgTable('series', {
  id: text('id').primaryKey(),
  title: text('title').notNull(),
  /** Free text such as `weekly` or an RRULE; informative only. */
  cadence: text('cadence'),
  createdAt: text('created_at').notNull(),
});

export type SeriesRow = typeof series.$inferSelect;
