// Export records (syntheo.meeting/v1) for the conformance suite: the data goes in through the Store
// (admin.load), never through SQL, so every engine starts from the same meetings.
import type { MeetingExport } from '../../src/db/queries/types.js';

export type Word = [text: string, start_ms: number | null, end_ms: number | null, speaker: string | null];

/** Speaker turns `[speaker, "words ..."]` as timed words: each word 300 ms long, 100 ms apart, 1 s between turns. */
export function timed(turns: readonly (readonly [string | null, string])[], startMs = 1_000): Word[] {
  const words: Word[] = [];
  let t = startMs;
  for (const [speaker, text] of turns) {
    for (const w of text.split(' ')) {
      words.push([w, t, t + 300, speaker]);
      t += 400;
    }
    t += 1_000;
  }
  return words;
}

/** The segments an export holds: a new one where the speaker changes or after 100 words. */
export function segments(words: readonly Word[]): MeetingExport['transcripts'][number]['segments'] {
  const out: MeetingExport['transcripts'][number]['segments'] = [];
  let count = 0;
  for (const [text, start, end, speaker] of words) {
    const current = out.at(-1);
    if (!current || current.speaker !== speaker || count >= 100) {
      out.push({ speaker, start_ms: start, end_ms: end, text, times: [[start, end]] });
      count = 1;
    } else {
      current.text += ` ${text}`;
      current.times.push([start, end]);
      current.end_ms = end;
      count++;
    }
  }
  return out;
}

export interface RecordSpec {
  id: string;
  title: string;
  started_at: string;
  folder_path?: string | null;
  series?: MeetingExport['series'];
  note?: string;
  summaries?: { id: string; title?: string; content: string }[];
  participants?: { name: string; email?: string | null; role?: string | null }[];
  action_items?: { id: string; text: string; assignee?: string | null; due_date?: string | null; done?: boolean }[];
  speakers?: string[];
  speaker_context?: string;
  words?: Word[];
  timing?: 'measured' | 'estimated' | 'mixed';
}

/** A whole record, in the exact form export() gives back (so load then export is an identity). */
export function record(spec: RecordSpec): MeetingExport {
  const ended = new Date(Date.parse(spec.started_at) + 30 * 60_000).toISOString();
  const words = spec.words ?? [];
  return {
    format: 'syntheo.meeting/v1',
    id: spec.id,
    title: spec.title,
    started_at: spec.started_at,
    ended_at: ended,
    folder_path: spec.folder_path ?? null,
    series: spec.series ?? null,
    note: spec.note ?? '',
    summaries: (spec.summaries ?? []).map((s) => ({ id: s.id, title: s.title ?? 'Summary', content: s.content, created_at: ended, updated_at: ended })),
    participants: (spec.participants ?? []).map((p) => ({ name: p.name, email: p.email ?? null, role: p.role ?? null })),
    action_items: (spec.action_items ?? []).map((a) => ({ id: a.id, text: a.text, assignee: a.assignee ?? null, due_date: a.due_date ?? null, done: a.done ?? false })),
    ...(spec.speakers ? { speakers: spec.speakers } : {}),
    ...(spec.speaker_context ? { speaker_context: spec.speaker_context } : {}),
    transcripts: words.length
      ? [{ id: spec.id.replace(/^mtg_/, 'trn_'), language: 'en', source: 'load', word_count: words.length, timing: spec.timing ?? 'measured', segments: segments(words) }]
      : [],
    created_at: ended,
    updated_at: ended,
  };
}

export const WEEKLY = { id: 'ser_weekly', title: 'Weekly sync', cadence: 'weekly' } as const;

// The budget meeting's transcript: the exact phrase "budget review" in a long turn, the two words
// apart (and repeated, which BM25 alone would rank higher) in a short one, "budget" alone elsewhere.
export const ALPHA_WORDS = timed([
  ['Ada', 'good morning everyone thanks for joining'],
  ['Grace', 'review review budget budget'],
  ['Ada', 'so today we start the budget review with the numbers from finance and then we look at the hiring plan for the next quarter'],
  ['Grace', 'the budget is tight this year'],
  ['Ada', 'the office near the budget review room is free'],
]);

export const BETA_WORDS = timed([
  ['Grace', 'the launch date moves to April'],
  ['Linus', 'marketing needs the final name before the launch'],
]);

/** Four meetings: two of the weekly series in two folders, one beyond ASCII, one outside any folder. */
export function dataset(): MeetingExport[] {
  return [
    record({
      id: 'mtg_alpha',
      title: 'Budget review Q3',
      started_at: '2026-03-02T09:00:00.000Z',
      folder_path: 'Projets/Budget',
      series: { ...WEEKLY },
      note: 'Budget note: spend less on travel.',
      summaries: [{ id: 'sum_alpha', title: 'Summary', content: '## Budget\n\n- Finance sends the numbers\n- The roadmap waits\n' }],
      participants: [
        { name: 'Ada Lovelace', email: 'ada@example.com', role: 'host' },
        { name: 'Grace Hopper', email: 'grace@navy.example' },
      ],
      action_items: [
        { id: 'act_alpha1', text: 'Send the numbers', assignee: 'Ada Lovelace', due_date: '2026-03-06' },
        { id: 'act_alpha2', text: 'Book the room', done: true },
      ],
      speakers: ['Ada', 'Grace'],
      speaker_context: 'Conference room microphone',
      words: ALPHA_WORDS,
    }),
    record({
      id: 'mtg_beta',
      title: 'Launch planning',
      started_at: '2026-03-09T09:00:00.000Z',
      folder_path: 'Projets/Lancement',
      series: { ...WEEKLY },
      participants: [{ name: 'Grace Hopper', email: 'grace@navy.example' }, { name: 'Linus Torvalds' }],
      words: BETA_WORDS,
      timing: 'estimated',
    }),
    record({
      id: 'mtg_gamma',
      title: "Café avec l'équipe",
      started_at: '2026-03-16T14:30:00.000Z',
      folder_path: 'Équipe',
      note: 'Notes du café',
      summaries: [
        { id: 'sum_gamma1', title: 'Résumé', content: 'Première version' },
        { id: 'sum_gamma2', title: 'Décisions', content: 'Deuxième version' },
      ],
      participants: [{ name: 'Zoë Ündset', email: 'zoe@example.org' }],
    }),
    record({ id: 'mtg_delta', title: 'Retro 100% done', started_at: '2026-02-20T16:00:00.000Z' }),
  ];
}
