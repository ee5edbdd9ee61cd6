import { afterEach, describe, expect, it } from 'vitest';
import { loadDemo } from '../../src/demo/dataset.js';
import { openSqliteStore } from '../../src/db/sqlite/store.js';
import type { Store } from '../../src/db/store.js';
import { openTestDb } from '../support/db.js';

const open: { store: Store; cleanup(): void }[] = [];
afterEach(async () => {
  for (const d of open.splice(0)) {
    await d.store.close();
    d.cleanup();
  }
});

/** A migrated database file, and a Store on it: the demo loads through the Store, as `syntheo demo` does. */
function openDemoDb() {
  const d = openTestDb();
  const store = openSqliteStore(d.path, { create: false });
  open.push({ store, cleanup: d.cleanup });
  return { sqlite: d.sqlite, store };
}

describe('syntheo demo data', () => {
  it('has what the walk-through needs, all in the past', async () => {
    const { store } = openDemoDb();
    const now = Date.parse('2026-11-30T04:00:00Z');
    await loadDemo(store, now);
    const { meetings } = await store.meetings.list({}, { limit: 200, offset: 0 });
    expect(meetings.length).toBeGreaterThanOrEqual(8);
    expect(meetings.every((m) => Date.parse(m.started_at) < now)).toBe(true);
    // Newest first.
    expect(meetings.map((m) => m.started_at)).toEqual([...meetings.map((m) => m.started_at)].sort().reverse());

    const folders = (await store.folders.list({}, { limit: 200, offset: 0 })).folders;
    expect(folders.some((f) => f.path.split('/').length >= 3 && f.meeting_count > 0)).toBe(true);
    expect(folders.filter((f) => f.meeting_count === 0 && !folders.some((c) => c.parent_path === f.path)).map((f) => f.path)).toEqual(['Archive/2025', 'Personal']);

    const weekly = meetings.filter((m) => m.series_id !== null);
    expect(weekly.length).toBeGreaterThanOrEqual(4);
    expect(new Set(weekly.map((m) => m.series_id)).size).toBe(1);

    const details = await Promise.all(meetings.map((m) => store.meetings.get(m.id)));
    const transcribed = details.filter((m) => m.transcript);
    expect(transcribed.length).toBeGreaterThanOrEqual(5);
    for (const m of transcribed) {
      expect(m.transcript!.word_count).toBeGreaterThanOrEqual(200);
      expect(m.speakers!.length).toBeGreaterThanOrEqual(2);
      expect(m.speakers!.length).toBeLessThanOrEqual(3);
    }
    expect(details.some((m) => m.summaries.length === 2)).toBe(true);
    expect(details.every((m) => m.participants.length > 0)).toBe(true);
    expect(details.filter((m) => m.action_items.length > 0).length).toBeGreaterThanOrEqual(5);
    const pending = await store.proposals.list({ status: 'pending' }, { limit: 20, offset: 0 });
    expect(pending.proposals.map((p) => [p.kind, p.stale])).toEqual([['summary', false]]);
  });

  it('running it twice duplicates nothing', async () => {
    const d = openDemoDb();
    const counts = () =>
      d.sqlite
        .prepare(
          `SELECT (SELECT count(*) FROM meetings) meetings, (SELECT count(*) FROM folders) folders, (SELECT count(*) FROM series) series,
             (SELECT count(*) FROM summaries) summaries, (SELECT count(*) FROM participants) participants, (SELECT count(*) FROM action_items) actions,
             (SELECT count(*) FROM transcript_words) words, (SELECT count(*) FROM proposals) proposals`,
        )
        .get();
    await loadDemo(d.store, Date.parse('2026-11-30T04:00:00Z'));
    const first = counts();
    await loadDemo(d.store, Date.parse('2026-12-01T04:00:00Z'));
    expect(counts()).toEqual(first);
  });
});
