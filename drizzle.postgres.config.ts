import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate --config drizzle.postgres.config.ts` writes the PostgreSQL migrations into
// drizzle/postgres/ (committed); the SQLite ones stay in drizzle/ (drizzle.config.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema-pg/index.ts',
  out: './drizzle/postgres',
  dbCredentials: { url: process.env.SYNTHEO_DB ?? 'postgresql://localhost/syntheo' },
  strict: true,
  verbose: false,
});
