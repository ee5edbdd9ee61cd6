import { UsageError, optBool, optString, type CommandSpec } from '../framework.js';
import { CLEAR_LINE, redrawn } from '../terminal.js';
import { copyDatabase, createPostgresRoles, isPostgresUrl, postgresRolesSql, resolveDbLocation } from '../../db/engine.js';
import { DEFAULT_ROLES } from '../../db/model/postgres.js';

// `syntheo db ...`: the database itself, for teams (src/db/postgres/roles.ts, src/db/copy.ts).

const roles: CommandSpec = {
  name: 'db roles',
  summary: "Create the assistants' and the app's PostgreSQL roles",
  description: [
    'PostgreSQL only. Creates (or brings up to date) two group roles on the database named by --db, migrating it first:',
    '  assistants (default syntheo_assistant): read everything, create proposals and import jobs, decline proposals;',
    '    PostgreSQL refuses any change to a meeting, summary, note, participant, action item or transcript.',
    '  app (default syntheo_app): read and write everything (syntheo-worker, applying proposals).',
    'Run it as the database owner with CREATEROLE, or a superuser. The roles cannot log in: make each person or machine',
    'a member, e.g. CREATE ROLE alice LOGIN PASSWORD \'...\' IN ROLE syntheo_assistant; then give them',
    '--db postgresql://alice@host/syntheo. Safe to run again (after an upgrade, to cover new tables).',
  ].join('\n'),
  options: {
    'assistant-role': { type: 'string', value: 'NAME', description: "Name of the assistants' role (default syntheo_assistant)" },
    'app-role': { type: 'string', value: 'NAME', description: "Name of the app's role (default syntheo_app)" },
    print: { type: 'boolean', description: 'Print the SQL instead of running it' },
  },
  examples: ['syntheo db roles --db postgresql://postgres@db.internal/syntheo', 'syntheo db roles --db postgresql://postgres@db.internal/syntheo --print'],
  globals: ['db', 'json', 'log-level', 'color', 'no-color'],
  async run(ctx) {
    const location = resolveDbLocation(ctx.global.db);
    if (!isPostgresUrl(location)) throw new UsageError('syntheo db roles is for a PostgreSQL database: pass --db postgresql://USER@HOST/DATABASE (or set SYNTHEO_DB).');
    const names = { assistant: optString(ctx.options, 'assistant-role') ?? DEFAULT_ROLES.assistant, app: optString(ctx.options, 'app-role') ?? DEFAULT_ROLES.app };
    if (optBool(ctx.options, 'print')) {
      const sql = (await postgresRolesSql(location, names)).map((s) => `${s};`);
      return { data: { roles: names, sql }, text: sql.join('\n') };
    }
    const done = await createPostgresRoles(location, names, ctx.onSchema);
    return {
      data: done,
      text: [
        `Roles ready on database ${done.database}: ${names.assistant} (assistants: read, propose, import) and ${names.app} (the app: everything).`,
        `Give each person or machine a login in one of them, e.g.: CREATE ROLE alice LOGIN PASSWORD '...' IN ROLE ${names.assistant};`,
      ].join('\n'),
    };
  },
};

const copy: CommandSpec = {
  name: 'db copy',
  summary: 'Copy a whole Syntheo database to another one (SQLite <-> PostgreSQL)',
  description: [
    'Copies every meeting, folder, series, transcript, summary, note, proposal, import and setting of --from into --to,',
    'keeping every ID. Each side is an SQLite file or a postgres:// URL. --to must be empty (it is created and migrated',
    'when missing): copy never merges. Search indexes and folder counts are rebuilt on the target. The copy is one',
    'transaction on the target: stopped half-way (an error, Ctrl-C, a crash), it leaves the target empty, ready to run again.',
    'Moving in: syntheo db copy --from ~/.local/share/syntheo/syntheo.db --to postgresql://me@db/syntheo',
  ].join('\n'),
  options: {
    from: { type: 'string', value: 'DB', description: 'Source database: an SQLite file or a postgres:// URL (default: --db)' },
    to: { type: 'string', value: 'DB', description: 'Target database, empty or missing: an SQLite file or a postgres:// URL' },
  },
  examples: ['syntheo db copy --from ~/meetings.db --to postgresql://me@db.internal/syntheo', 'syntheo db copy --from postgresql://me@db.internal/syntheo --to ./backup.db'],
  globals: ['db', 'json', 'log-level', 'color', 'no-color'],
  async run(ctx) {
    const to = optString(ctx.options, 'to');
    if (to === undefined || to === '') throw new UsageError('db copy needs --to: the database to fill (an SQLite file or a postgres:// URL).');
    const fromFlag = optString(ctx.options, 'from');
    const from = resolveDbLocation(fromFlag ?? ctx.global.db);
    // Progress: on a terminal one line redrawn per batch; otherwise a line per table once it is copied.
    let current: { table: string; rows: number } | undefined;
    const done = () => {
      if (current && !ctx.live) ctx.print(`${current.table}: ${current.rows} rows`);
    };
    const result = await copyDatabase(from, resolveDbLocation(to), (step, rows) => {
      if (current?.table !== step) done();
      if (rows === undefined) {
        // The last step (no count): the target builds its search indexes.
        current = undefined;
        const line = `building the ${step}`;
        if (ctx.live) process.stdout.write(redrawn(`${line}…`, ctx.colour));
        else ctx.print(line);
        return;
      }
      current = { table: step, rows };
      if (ctx.live) process.stdout.write(redrawn(`copying ${step}: ${rows} rows`, ctx.colour));
    }, ctx.onSchema).finally(() => {
      if (ctx.live) process.stdout.write(CLEAR_LINE);
    });
    done();
    const counts = Object.entries(result.tables)
      .filter(([, n]) => n > 0)
      .map(([t, n]) => `${t} ${n}`)
      .join(', ');
    return { data: result, text: `Copied ${result.from} to ${result.to}: ${counts || 'nothing (the source is empty)'}.` };
  },
};

export const commands: CommandSpec[] = [roles, copy];
