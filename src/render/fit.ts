// Texts cut to fit one answer: a meeting's note, summaries and lists, a proposal's diff and contents.
// The CLI shows them whole; an MCP answer holds at most ANSWER_BYTE_BUDGET bytes of JSON, and when
// something is cut, `truncated` says what (field, shown, total) and where to read the rest.
import type { FieldCut, MeetingRecord, ProposalDetail, Truncation } from '../db/queries/types.js';
import { ANSWER_BYTE_BUDGET, jsonBytes } from './budget.js';

export type { FieldCut, Truncation };

/** Bytes of a string inside JSON, quotes left out. */
const textBytes = (s: string): number => jsonBytes(s) - 2;

/** The longest prefix of `s` taking at most `bytes` bytes in JSON, never splitting a surrogate pair. */
export function cutText(s: string, bytes: number): string {
  if (textBytes(s) <= bytes) return s;
  let lo = 0;
  let hi = Math.min(s.length, Math.max(0, bytes)); // each character takes at least one byte
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (textBytes(s.slice(0, mid)) <= bytes) lo = mid;
    else hi = mid - 1;
  }
  const code = s.charCodeAt(lo - 1);
  return code >= 0xd800 && code <= 0xdbff ? s.slice(0, lo - 1) : s.slice(0, lo);
}

/** Max-min fair shares of `room` bytes: texts that fit their share stay whole, the others share the rest equally. */
export function fairShares(sizes: readonly number[], room: number): number[] {
  const order = sizes.map((size, i) => ({ size, i })).sort((a, b) => a.size - b.size);
  const shares = new Array<number>(sizes.length).fill(0);
  let left = Math.max(0, room);
  for (const [k, { size, i }] of order.entries()) {
    const share = Math.floor(left / (order.length - k));
    shares[i] = Math.min(size, share);
    left -= shares[i]!;
  }
  return shares;
}

interface Slot {
  family: string;
  get(): string;
  set(value: string): void;
}

type RecordLike = Pick<MeetingRecord, 'title' | 'note' | 'summaries' | 'participants' | 'action_items' | 'speakers' | 'speaker_context'>;

const LISTS = ['summaries', 'participants', 'action_items', 'speakers'] as const;

/** The strings of a meeting record that may be long (IDs and dates are bounded by the database; a loaded title is not). */
function slots(r: RecordLike): Slot[] {
  const out: Slot[] = [{ family: 'title', get: () => r.title, set: (v) => (r.title = v) }, { family: 'note', get: () => r.note, set: (v) => (r.note = v) }];
  if (typeof r.speaker_context === 'string') out.push({ family: 'speaker_context', get: () => r.speaker_context!, set: (v) => (r.speaker_context = v) });
  r.summaries.forEach((s, i) => {
    out.push({ family: `summaries[${i}].title`, get: () => s.title, set: (v) => (s.title = v) });
    out.push({ family: `summaries[${i}].content`, get: () => s.content, set: (v) => (s.content = v) });
  });
  for (const p of r.participants) {
    out.push({ family: 'participants[].name', get: () => p.name, set: (v) => (p.name = v) });
    if (p.email !== null) out.push({ family: 'participants[].email', get: () => p.email!, set: (v) => (p.email = v) });
    if (p.role !== null) out.push({ family: 'participants[].role', get: () => p.role!, set: (v) => (p.role = v) });
  }
  for (const a of r.action_items) {
    out.push({ family: 'action_items[].text', get: () => a.text, set: (v) => (a.text = v) });
    if (a.assignee !== null) out.push({ family: 'action_items[].assignee', get: () => a.assignee!, set: (v) => (a.assignee = v) });
    if (a.due_date !== null) out.push({ family: 'action_items[].due_date', get: () => a.due_date!, set: (v) => (a.due_date = v) });
  }
  if (r.speakers) r.speakers.forEach((_, i) => out.push({ family: 'speakers[]', get: () => r.speakers![i]!, set: (v) => (r.speakers![i] = v) }));
  return out;
}

/** A deep enough copy to cut in place: the lists and their items are new, the rest is shared. */
function copyRecord<T extends RecordLike>(r: T): T {
  return {
    ...r,
    summaries: r.summaries.map((s) => ({ ...s })),
    participants: r.participants.map((p) => ({ ...p })),
    action_items: r.action_items.map((a) => ({ ...a })),
    ...(r.speakers ? { speakers: [...r.speakers] } : {}),
  };
}

/**
 * The record whole when its JSON takes at most `budget` bytes; else a copy with lists shortened (when
 * their items alone would take over half of it) and long texts cut to fair shares, and the cuts.
 * `extra` is what the caller adds to the answer besides (e.g. its own truncation notice), in bytes.
 */
export function fitRecord<T extends RecordLike>(record: T, budget: number, extra = 0): { record: T; cuts: FieldCut[] } {
  if (jsonBytes(record) + extra <= budget) return { record, cuts: [] };
  const r = copyRecord(record);
  const cuts: FieldCut[] = [];
  // Lists so long that their items without any text pass half the budget: each keeps its first items within a fair share of that half.
  const bare = copyRecord(record);
  for (const s of slots(bare)) s.set('');
  if (jsonBytes(bare) > budget / 2) {
    const lists = LISTS.map((name) => (bare[name] as unknown[] | null | undefined) ?? []);
    const parts = fairShares(lists.map(jsonBytes), budget / 2);
    for (const [k, name] of LISTS.entries()) {
      const list = lists[k]!;
      let used = 0;
      let kept = 0;
      for (const item of list) {
        used += jsonBytes(item) + 1;
        if (used > parts[k]!) break;
        kept++;
      }
      if (kept < list.length) {
        cuts.push({ field: name, unit: 'items', shown: kept, total: list.length });
        (r[name] as unknown[]).length = kept;
      }
    }
  }
  const all = slots(r);
  const texts = all.map((s) => s.get());
  const totals = new Map<string, { shown: number; total: number }>();
  for (const [i, s] of all.entries()) {
    const t = totals.get(s.family) ?? { shown: 0, total: 0 };
    t.total += texts[i]!.length;
    totals.set(s.family, t);
  }
  for (const s of all) s.set('');
  const sizes = texts.map(textBytes);
  // The cut list's own size is an estimate; the loop takes it back from the texts if the answer still passes.
  let room = budget - extra - jsonBytes(r) - 120 * (totals.size + cuts.length);
  for (let attempt = 1; ; attempt++) {
    const shares = fairShares(sizes, room);
    all.forEach((s, i) => s.set(shares[i]! >= sizes[i]! ? texts[i]! : cutText(texts[i]!, shares[i]!)));
    for (const t of totals.values()) t.shown = 0;
    all.forEach((s) => (totals.get(s.family)!.shown += s.get().length));
    const fieldCuts = [...cuts, ...[...totals].filter(([, t]) => t.shown < t.total).map(([field, t]): FieldCut => ({ field, unit: 'characters', ...t }))];
    const over = jsonBytes(r) + jsonBytes(fieldCuts) + extra - budget;
    if (over <= 0 || room <= 0) return { record: r, cuts: fieldCuts };
    room = attempt < 8 ? room - over - 64 : 0; // the estimate is off by a cut list at most: one or two rounds
  }
}

const meetingReadRest = (id: string): string =>
  `The cut text is not in this answer: search_transcripts finds passages of a note or summary (hits of kind note or summary); the person sees the meeting whole with \`syntheo meetings get ${id}\` or in the app.`;

/** get_meeting and the meeting resource: the meeting whole, or cut to one answer with `truncated`. */
export function fitMeeting<T extends RecordLike & { id: string }>(meeting: T, budget = ANSWER_BYTE_BUDGET): T & { truncated?: Truncation } {
  const notice = (fields: FieldCut[]): Truncation => ({
    reason: 'The meeting is more than one answer may hold: the fields listed are shown in part (their first characters, or first items).',
    fields,
    read_rest: meetingReadRest(meeting.id),
  });
  const { record, cuts } = fitRecord(meeting, budget, jsonBytes({ truncated: notice([]) }));
  return cuts.length === 0 ? record : { ...record, truncated: notice(cuts) };
}

/** The export's record part, transcripts aside: the note, summaries and lists get at most `budget` bytes, and read_rest for them. */
export function fitExportRecord<T extends RecordLike & { id: string }>(record: T, budget: number): { record: T; cuts: FieldCut[]; read_rest: string } {
  const { record: r, cuts } = fitRecord(record, budget);
  return { record: r, cuts, read_rest: meetingReadRest(record.id) };
}

// ---- proposals ----------------------------------------------------------------------------------

/** A meeting title in a proposal's answer: a real one is a line; one loaded from a file may be anything. */
const TITLE_BYTES = 2_000;

/** Lines of a unified diff: the headers, then hunks (each its `@@` line and body). */
function splitDiff(diff: string): { head: string[]; hunks: string[][] } {
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff.split('\n');
  const head: string[] = [];
  const hunks: string[][] = [];
  for (const line of lines) {
    if (line.startsWith('@@ ')) hunks.push([line]);
    else if (hunks.length) hunks.at(-1)!.push(line);
    else head.push(line);
  }
  return { head, hunks };
}

/** A hunk's first lines, its header recounted so that the part is still a hunk `patch` applies. */
function partialHunk(hunk: string[], bodyLines: number): string[] {
  const m = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(hunk[0]!);
  const body = hunk.slice(1, 1 + bodyLines);
  let removed = 0;
  let added = 0;
  for (const line of body) {
    if (line.startsWith(' ')) {
      removed++;
      added++;
    }
    else if (line.startsWith('-')) removed++;
    else if (line.startsWith('+')) added++;
  }
  if (!m) return [hunk[0]!, ...body];
  // Starts as GNU prints them: a zero-length range names the line before it.
  const oldStart = Number(m[1]) + (/^@@ -\d+,0 /.test(hunk[0]!) ? 1 : 0);
  const newStart = Number(m[2]) + (/ \+\d+,0 @@/.test(hunk[0]!) ? 1 : 0);
  const range = (start: number, n: number): string => `${n === 0 ? start - 1 : start}${n === 1 ? '' : `,${n}`}`;
  return [`@@ -${range(oldStart, removed)} +${range(newStart, added)} @@`, ...body];
}

/** The diff's first hunks within `bytes` (JSON); if not even the first fits, its first lines. */
export function cutDiff(diff: string, bytes: number): { diff: string; hunksShown: number; hunksTotal: number; partial: boolean } {
  const { head, hunks } = splitDiff(diff);
  if (textBytes(diff) <= bytes) return { diff, hunksShown: hunks.length, hunksTotal: hunks.length, partial: false };
  const out = [...head];
  let used = textBytes(`${head.join('\n')}\n`);
  let shown = 0;
  for (const hunk of hunks) {
    const size = textBytes(`${hunk.join('\n')}\n`);
    if (used + size > bytes) break;
    out.push(...hunk);
    used += size;
    shown++;
  }
  let partial = false;
  if (shown === 0 && hunks.length > 0) {
    // One hunk larger than the room: its first lines, each whole.
    const hunk = hunks[0]!;
    let n = 0;
    used += 40; // the recounted header
    for (const line of hunk.slice(1)) {
      const size = textBytes(line) + 2;
      if (used + size > bytes) break;
      used += size;
      n++;
    }
    out.push(...partialHunk(hunk, n));
    partial = true;
  }
  return { diff: `${out.join('\n')}\n`, hunksShown: shown, hunksTotal: hunks.length, partial };
}

/**
 * get_proposal and the propose_ and decline answers: whole when they fit; else the diff first (cut at a
 * hunk boundary), then content and base_content sharing what is left, and `truncated`.
 */
export function fitProposal(p: ProposalDetail, budget = ANSWER_BYTE_BUDGET): ProposalDetail & { truncated?: Truncation } {
  if (jsonBytes(p) <= budget) return p;
  const title = cutText(p.meeting_title, TITLE_BYTES);
  const skeleton = { ...p, meeting_title: title, content: '', base_content: p.base_content === null ? null : '', diff: '' };
  const notice = (fields: FieldCut[], diffNote: string): Truncation => ({
    reason: `The proposal is more than one answer may hold: the fields listed are shown in part (their first characters). ${diffNote}`,
    fields,
    read_rest: `Nothing more can be read through MCP: the person reviews the proposal whole with \`syntheo proposals show ${p.id}\` or in the app. Do not propose it again to read it.`,
  });
  // Room for three cuts and the longest diff note.
  let room = budget - jsonBytes(skeleton) - jsonBytes(notice([0, 1, 2, 3].map(() => ({ field: 'base_content', unit: 'characters', shown: 9_999_999, total: 9_999_999 })), 'x'.repeat(160)));
  const cut = cutDiff(p.diff, room);
  room -= textBytes(cut.diff);
  const texts = [p.content, p.base_content ?? ''];
  const shares = fairShares(texts.map(textBytes), room);
  const [content, base] = texts.map((t, i) => cutText(t, shares[i]!)) as [string, string];
  const fields: FieldCut[] = [];
  const record = (field: string, shown: string, whole: string): void => {
    if (shown.length < whole.length) fields.push({ field, unit: 'characters', shown: shown.length, total: whole.length });
  };
  record('meeting_title', title, p.meeting_title);
  record('diff', cut.diff, p.diff);
  record('content', content, p.content);
  if (p.base_content !== null) record('base_content', base, p.base_content);
  const diffNote =
    cut.diff.length === p.diff.length
      ? 'The diff is whole.'
      : cut.partial
        ? `The diff shows the first lines of its first hunk (of ${cut.hunksTotal}), that hunk's header recounted to them.`
        : `The diff stops after ${cut.hunksShown} of its ${cut.hunksTotal} hunks, at a hunk boundary.`;
  return { ...p, meeting_title: title, content, base_content: p.base_content === null ? null : base, diff: cut.diff, truncated: notice(fields, diffNote) };
}
