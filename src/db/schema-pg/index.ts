// The PostgreSQL schema: the same tables and columns as src/db/schema (SQLite), in PostgreSQL's types.
// drizzle-kit generates drizzle/postgres/ from it (drizzle.postgres.config.ts).
export * from '../schema/enums.js';
export * from './folders.js';
export * from './series.js';
export * from './meetings.js';
export * from './transcripts.js';
export * from './proposals.js';
export * from './imports.js';
export * from './settings.js';
export * from './search.js';
export * from './filters.js';
export * from './bitmaps.js';
