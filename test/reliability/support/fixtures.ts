// The database and the files the reliability suites attack.
import type { Sqlite } from '../../../src/db/open.js';
import { makeActionItem, makeMeeting, makeParticipant, makeSeries, makeSummary, makeTranscript } from '../../support/factories.js';
import { proposeMemoEdit, proposeSummaryEdit } from '../../../src/db/queries/proposals.js';

export interface Seeded {
  meetings: string[];
  /** A meeting with two summaries (proposals need target_id). */
  twoSummaries: string;
  oneSummary: string;
  noSummary: string;
  summaries: string[];
  series: string;
  proposals: string[];
  folders: string[];
}

/** A few meetings that reach every branch of the tools: series, folders, summaries, transcript, proposals. */
export function seed(sqlite: Sqlite): Seeded {
  const series = makeSeries(sqlite, { title: 'Weekly "sync" 100%_done' });
  const twoSummaries = makeMeeting(sqlite, { title: 'Budget 100% review_Q1 "final"', folderPath: 'Projets/Lancement', seriesId: series, note: '# Notes\n' });
  const oneSummary = makeMeeting(sqlite, { title: 'Réunion équipe 🎉', folderPath: 'Projets', seriesId: series });
  const noSummary = makeMeeting(sqlite, { title: "O'Brien's 1:1", folderPath: 'Clients/ACME/2026' });
  const summaries = [makeSummary(sqlite, twoSummaries, { content: 'First.' }), makeSummary(sqlite, twoSummaries, { content: 'Second.', position: 1 }), makeSummary(sqlite, oneSummary)];
  makeTranscript(sqlite, oneSummary, { words: 300 });
  makeTranscript(sqlite, twoSummaries, { texts: ['the', 'budget', 'review', 'moves', 'to', 'thursday'] });
  makeParticipant(sqlite, oneSummary, { name: 'Ada Lovelace', email: 'ada@example.com' });
  makeActionItem(sqlite, oneSummary, { text: 'Send the numbers', assignee: 'Ada' });
  const proposals = [
    proposeMemoEdit(sqlite, { meetingId: noSummary, content: '# A note\n' }).id,
    proposeSummaryEdit(sqlite, { meetingId: oneSummary, content: 'A better summary.' }).id,
  ];
  return { meetings: [twoSummaries, oneSummary, noSummary], twoSummaries, oneSummary, noSummary, summaries, series, proposals, folders: ['Projets', 'Projets/Lancement', 'Clients/ACME/2026'] };
}

/** One heartbeat of a pretend `syntheo-worker`: the app counts as open for the next 15 s. */
export function heartbeat(sqlite: Sqlite, id = 'wrk_reliability'): void {
  const now = new Date().toISOString();
  sqlite
    .prepare(
      `INSERT INTO workers (id, hostname, pid, version, concurrency, started_at, heartbeat_at) VALUES (?, 'test-host', ?, '0.1.0', 2, ?, ?)
       ON CONFLICT(id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at, stopped_at = NULL`,
    )
    .run(id, process.pid, now, now);
}

/** Stands for a running `syntheo-worker`: a heartbeat kept fresh until the returned stop() is called. */
export function keepWorkerAlive(sqlite: Sqlite, id = 'wrk_reliability'): () => void {
  heartbeat(sqlite, id);
  const timer = setInterval(() => heartbeat(sqlite, id), 2_000);
  return () => {
    clearInterval(timer);
    if (sqlite.open) sqlite.prepare('UPDATE workers SET stopped_at = ? WHERE id = ?').run(new Date().toISOString(), id);
  };
}

export function count(sqlite: Sqlite, table: string, where = ''): number {
  return (sqlite.prepare(`SELECT count(*) AS n FROM ${table} ${where}`).get() as { n: number }).n;
}

export { writeWav } from '../../support/wav.js';
