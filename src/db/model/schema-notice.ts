// What opening a database says while it brings an existing schema up to date. An upgrade can hold the
// database for a minute (SQLite migration 0018 rewrites the full-text index: 37-45 s at 100k meetings),
// and a process that only waited silently looked hung: the CLI prints these, the servers log them.
import type { Logger } from '../../log.js';

export type SchemaNotice =
  /** Another process holds the database (most likely upgrading it); this one waits for it. */
  | { kind: 'waiting'; where: string }
  /** This process applies `pending` (migration tags, oldest first) to a database that had a schema. */
  | { kind: 'upgrading'; where: string; pending: string[] }
  | { kind: 'upgraded'; where: string; applied: number; ms: number };

export type OnSchemaNotice = (notice: SchemaNotice) => void;

/** The line a person reads. `where` is a file path or a PostgreSQL target without its password. */
export function schemaNoticeText(notice: SchemaNotice): string {
  switch (notice.kind) {
    case 'waiting':
      return `Waiting for another Syntheo process to finish with ${notice.where} (it is most likely upgrading its schema)...`;
    case 'upgrading': {
      const n = notice.pending.length;
      return `Upgrading the database at ${notice.where} to this version's schema (${n} migration${n === 1 ? '' : 's'}: ${notice.pending.join(', ')}); on a large database this takes a minute or more...`;
    }
    case 'upgraded':
      return `Upgraded the database at ${notice.where} in ${(notice.ms / 1000).toFixed(1)} s.`;
  }
}

/** For a server's log (mcp, worker, app), at warn: the default level, so a person looking at the log sees why it paused. */
export const logSchemaNotices =
  (logger: Pick<Logger, 'warn'>): OnSchemaNotice =>
  (notice) =>
    logger.warn({ schema: notice.kind }, schemaNoticeText(notice));
