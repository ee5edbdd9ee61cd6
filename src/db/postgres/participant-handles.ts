// participant_handles (migration 0005): each distinct participant name and e-mail, which the `participant` filter
// matches its fragment against. Its trigger only ever adds: a renamed participant's old name stays, finding no
// meeting but costing the trigram match, and the table grows with every rename. `syntheo doctor` checks that none is
// missing; its search repair drops the handles nobody carries (which 0005's comment says no one does: it was written
// before this repair, and holds for the writers) and adds back the missing ones.
import type { Pool } from 'pg';
import { changes, one, rows, transaction, type Queryable } from './sql.js';

/**
 * A participant whose name or e-mail is missing from participant_handles: the participant filter does not find its
 * meeting by it. LIMIT 1, not a count: a count's plan is costed above jit_above_cost (the hashed subplans are
 * estimated at 3.4M) and JIT compiling alone took 350 ms; this reads the 400k participants of 100k meetings once,
 * 35-45 ms warm, up to 190-280 ms cold or with another query busy on the second core.
 */
const MISSING = `SELECT p.meeting_id FROM participants p WHERE NOT EXISTS (SELECT 1 FROM participant_handles h WHERE h.handle = p.name)
  OR (p.email IS NOT NULL AND NOT EXISTS (SELECT 1 FROM participant_handles h WHERE h.handle = p.email)) LIMIT 1`;

/** The meeting of a participant whose name or e-mail participant_handles lacks; undefined when none lacks one. */
export async function meetingMissingAHandle(q: Queryable): Promise<string | undefined> {
  return (await one<{ meeting_id: string }>(q, MISSING))?.meeting_id;
}

/** Handles no participant carries: two index probes each (4,000 handles at 100k meetings: 32 ms warm, 830 ms cold). */
const UNCARRIED = `FROM participant_handles h WHERE NOT EXISTS (SELECT 1 FROM participants p WHERE p.name = h.handle)
  AND NOT EXISTS (SELECT 1 FROM participants p WHERE p.email = h.handle)`;

/**
 * Deletes the handles no participant carries, then adds those missing; how many of each.
 *
 * A writer adds no handle for a name already in the table, so a delete must never see "no carrier" while a writer's
 * participant carrying it is uncommitted: its handle would be gone once that commits. So the deletes run under
 * LOCK TABLE participants IN SHARE MODE, which waits for every open writer of participants to end and keeps new ones
 * waiting until it commits; the DELETE's snapshot (READ COMMITTED), taken after the lock, sees all their participants,
 * and a writer let in afterwards sees the handle gone and adds it again. (Without a schema change there is no finer
 * lock: the trigger reads the handles without locking them.) To keep writers waiting briefly, the handles are looked for
 * before the lock, and only those are checked again under it: with none, no lock is taken; otherwise it is held for
 * their probes and deletes alone (200-600 handles among 400k participants, four writers busy: 6-19 ms; their longest
 * transaction meanwhile 10-28 ms against 2 ms usually), after waiting for the writers open when it was asked for (new
 * writers queue behind it meanwhile; a load's transaction also indexes its meeting's transcripts).
 *
 * The missing ones are added without a lock: an add only ever adds (a writer adding the same name meanwhile may make
 * it a repeat, which the trigger allows and which matches the same meetings). The add reads every participant (400k:
 * 0.3-0.4 s), so it runs only when the check finds a missing handle; since only these deletes remove handles, none can
 * go missing after the check.
 */
export async function repairParticipantHandles(pool: Pool): Promise<{ deleted: number; added: number }> {
  const uncarried = (await rows<{ handle: string }>(pool, `SELECT h.handle ${UNCARRIED}`)).map((r) => r.handle);
  const deleted =
    uncarried.length === 0
      ? 0
      : await transaction(pool, async (c) => {
          await c.query('LOCK TABLE participants IN SHARE MODE');
          return changes(c, `DELETE ${UNCARRIED} AND h.handle = ANY($1::text[])`, [uncarried]);
        });
  // Anti-joined before being made distinct: a UNION of the 800k names and e-mails first sorted them on disk (1.0 s).
  const added =
    (await meetingMissingAHandle(pool)) === undefined
      ? 0
      : await changes(
          pool,
          `INSERT INTO participant_handles (handle) SELECT DISTINCT x.handle FROM participants p CROSS JOIN LATERAL (VALUES (p.name), (p.email)) x(handle)
           WHERE x.handle IS NOT NULL AND NOT EXISTS (SELECT 1 FROM participant_handles h WHERE h.handle = x.handle)`,
        );
  return { deleted, added };
}
