import { defineConfig } from 'drizzle-kit';

// `npx drizzle-kit generate` writes migrations into drizzle/ (committed);
// `npx drizzle-kit studio` browses the database named by SYNTHEO_DB (see `syntheo studio`).
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema/index.ts',
  out: './drizzle',
  dbCredentials: { url: process.env.SYNTHEO_DB ?? `${process.env.XDG_DATA_HOME ?? `${process.env.HOME}/.local/share`}/syntheo/syntheo.db` },
  strict: true,
  verbose: false,
});
