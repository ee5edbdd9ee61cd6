import { InvalidInputError } from '../../errors.js';
import { describeTarget, toStorageError } from './errors.js';
import { openPostgres } from './open.js';
import type { OnSchemaNotice } from '../model/schema-notice.js';
import { DEFAULT_ROLES, type RoleNames } from '../model/postgres.js';

// Who may do what on a team database. Two group roles (NOLOGIN); people and machines log in as their
// own users made members of one of them:
// - assistants (`syntheo mcp` for everyone's AI assistant): read everything; create proposals, import
//   jobs (with the import's new meeting and its recording); decline a proposal. Never UPDATE or DELETE a
//   meeting, a summary, a note (a column of meetings), participants, action items or transcripts:
//   PostgreSQL itself refuses it, whatever SQL the role sends.
// - app (syntheo-worker, people applying proposals): read and write every table.
// The bookkeeping triggers (search passages, folder counts, job notifications) are SECURITY DEFINER
// (migration 0002), so an assistant's insert keeps them right without any write privilege on them.

export { DEFAULT_ROLES, type RoleNames } from '../model/postgres.js';

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** What an assistant inserts: an import's meeting, job and recording; a proposal. */
const ASSISTANT_INSERT = ['meetings', 'recording_imports', 'recording_chunks', 'proposals'];

/** The statements that create (or bring up to date) both roles and their privileges on this database. Idempotent. */
export function rolesSql(database: string, names: RoleNames = DEFAULT_ROLES): string[] {
  for (const n of [names.assistant, names.app])
    if (!ROLE_NAME.test(n)) throw new InvalidInputError(`Role name "${n}" is not a plain PostgreSQL name: use lower-case letters, digits and _ (at most 63).`);
  if (names.assistant === names.app) throw new InvalidInputError('The assistants\' role and the app\'s role must have different names.');
  const { assistant: a, app } = names;
  const db = `"${database.replace(/"/g, '""')}"`;
  const create = (role: string) => `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${role}') THEN CREATE ROLE ${role} NOLOGIN; END IF; END $$`;
  return [
    create(a),
    create(app),
    `GRANT CONNECT ON DATABASE ${db} TO ${a}, ${app}`,
    `GRANT USAGE ON SCHEMA public, drizzle TO ${a}, ${app}`,
    `GRANT SELECT ON drizzle.__drizzle_migrations TO ${a}, ${app}`,
    // Assistants: read all; insert what import_recording and the proposal tools create; decline proposals.
    `REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${a}`,
    `GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${a}`,
    `GRANT INSERT ON ${ASSISTANT_INSERT.join(', ')} TO ${a}`,
    `GRANT UPDATE (status, decided_at) ON proposals TO ${a}`,
    // The app: everything on the data, nothing on the schema (migrations run as the database owner).
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${app}`,
    `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${app}`,
    // Search postings are derived from the passages by triggers (migration 0004) and read by both: a
    // direct write would make search's counts wrong, so neither role may make one.
    `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON search_postings FROM ${a}, ${app}`,
    // The filter tags likewise (migrations 0007, 0008): derived from meetings, participants and passages by triggers.
    `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON participant_words, meeting_tags, search_tags, meeting_grams, meeting_tag_counts FROM ${a}, ${app}`,
    // And the meetings' tag versions (migration 0016): raised by those triggers.
    `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON meeting_tag_versions FROM ${a}, ${app}`,
    // And the meetings' numbers and their tags' bits (migration 0019): written by the triggers on meeting_tags.
    `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON meeting_numbers, meeting_tag_bits FROM ${a}, ${app}`,
    // And the words' counts and their pending deltas (migrations 0010, 0011): derived from search_postings by triggers.
    `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON search_word_counts, search_word_deltas, search_word_totals FROM ${a}, ${app}`,
    // And the search bitmaps, their words' counts, the names' grams and the newest block's (migrations 0013, 0020, 0027,
    // 0031): written by the triggers and the worker's rounds (functions of the owner).
    `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON search_bitmaps, search_counts, search_bitmap_terms, search_bitmap_stale, search_handle_grams, search_bitmap_tail, search_bitmap_tail_stale FROM ${a}, ${app}`,
    `REVOKE USAGE, UPDATE ON SEQUENCE search_bitmap_boundary, search_bitmap_tail_boundary FROM ${a}, ${app}`,
    // And the title words (migration 0012): derived from meeting_grams by a trigger.
    `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON title_words FROM ${a}, ${app}`,
    // And the title words' pairs (migration 0033): derived from meeting_grams by a trigger.
    `REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON title_pairs FROM ${a}, ${app}`,
    // Tables added by later migrations (run by this owner): readable by both, writable by the app.
    `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO ${a}`,
    `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${app}`,
    `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${app}`,
  ];
}

/**
 * Creates the two roles on the database at `url` (which it migrates first), as the user in the URL:
 * the database's owner, or a superuser. Returns the names and the database.
 */
export async function createRoles(url: string, names: RoleNames = DEFAULT_ROLES, onSchema?: OnSchemaNotice): Promise<{ database: string; roles: RoleNames }> {
  const db = await openPostgres(url, { create: true, max: 1, ...(onSchema && { onSchema }) });
  try {
    const database = (await db.pool.query<{ d: string }>('SELECT current_database() AS d')).rows[0]!.d;
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      for (const statement of rolesSql(database, names)) await client.query(statement);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      if ((error as { code?: string }).code === '42501')
        throw new InvalidInputError(
          `The user in --db may not create roles or grant on ${describeTarget(url)}: run syntheo db roles as the database's owner with CREATEROLE, or as a superuser (e.g. postgres).`,
        );
      throw toStorageError(url, error);
    } finally {
      client.release();
    }
    return { database, roles: names };
  } finally {
    await db.close();
  }
}
