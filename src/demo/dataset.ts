import type { Store } from '../db/store.js';
import { toSegments, type WordTuple } from '../db/model/export.js';
import { EXPORT_FORMAT, type ActionItem, type MeetingExport, type Participant, type SeriesRef, type Summary } from '../db/queries/types.js';
import { CUSTOMER_CALL, INTERVIEW_DEBRIEF, LAUNCH_PLANNING, PEOPLE, RESEARCH_READOUT, weeklySync, type Turn } from './script.js';

// Fixed ids: running `syntheo demo` again replaces the same rows instead of adding new ones.
export const DEMO_SERIES_ID = 'ser_demo_weekly_sync';
export const DEMO_PROPOSAL_ID = 'prp_demo_pending_edit';
export const DEMO_EMPTY_FOLDERS = ['Personal', 'Archive/2025'];

const DAY = 86_400_000;

/** Words with plausible timings: ~150 words a minute, a pause between turns. */
export function timedWords(turns: readonly Turn[]): WordTuple[] {
  const words: WordTuple[] = [];
  let t = 2_000;
  for (const [speaker, text] of turns) {
    for (const word of text.split(/\s+/).filter(Boolean)) {
      const duration = 160 + 40 * word.replace(/[^\p{L}\p{N}]/gu, '').length;
      words.push([words.length, word, t, t + duration, speaker]);
      t += duration + 70;
    }
    t += 700;
  }
  return words;
}

interface MeetingSpec {
  id: string;
  title: string;
  startedAt: number;
  folder: string | null;
  series?: SeriesRef;
  turns?: readonly Turn[];
  participants: Participant[];
  summaries: Omit<Summary, 'created_at' | 'updated_at'>[];
  actionItems: Omit<ActionItem, 'done'>[];
  note: string;
  speakerContext?: string;
}

function record(spec: MeetingSpec): MeetingExport {
  const words = spec.turns ? timedWords(spec.turns) : [];
  const durationMs = words.length ? words.at(-1)![3]! + 2_000 : 15 * 60_000;
  const started = new Date(spec.startedAt).toISOString();
  const ended = new Date(spec.startedAt + durationMs).toISOString();
  const speakers = spec.turns ? [...new Set(spec.turns.map(([s]) => s))] : undefined;
  return {
    format: EXPORT_FORMAT,
    id: spec.id,
    title: spec.title,
    started_at: started,
    ended_at: ended,
    folder_path: spec.folder,
    series: spec.series ?? null,
    note: spec.note,
    summaries: spec.summaries.map((s) => ({ ...s, created_at: ended, updated_at: ended })),
    participants: spec.participants,
    action_items: spec.actionItems.map((a) => ({ ...a, done: false })),
    ...(speakers ? { speakers } : {}),
    ...(spec.speakerContext ? { speaker_context: spec.speakerContext } : {}),
    transcripts: spec.turns
      ? [{ id: spec.id.replace(/^mtg_/, 'trn_'), language: 'en', source: 'demo', word_count: words.length, segments: toSegments(words) }]
      : [],
    created_at: ended,
    updated_at: ended,
  };
}

const p = (k: keyof typeof PEOPLE): Participant => ({ ...PEOPLE[k] });
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Ten meetings over the last five weeks, all in the past relative to `now` (so "recent" means recent). */
export function demoMeetings(now = Date.now()): MeetingExport[] {
  // Monday 00:00 UTC of the current week.
  const today = Math.floor(now / DAY) * DAY;
  const monday = today - ((new Date(today).getUTCDay() + 6) % 7) * DAY;
  const at = (weeksAgo: number, day: number, hour: number) => monday - weeksAgo * 7 * DAY + day * DAY + hour * 3_600_000;
  const series: SeriesRef = { id: DEMO_SERIES_ID, title: 'Product weekly sync', cadence: 'weekly (Mondays 09:00 UTC)' };
  const meetings: MeetingExport[] = [];

  for (let week = 0; week < 5; week++) {
    const weeksAgo = 5 - week;
    const start = at(weeksAgo, 0, 9);
    const id = `mtg_demo_weekly_${week + 1}`;
    const summaries: MeetingSpec['summaries'] = [
      {
        id: `sum_demo_weekly_${week + 1}`,
        title: 'Summary',
        content: [
          `## Weekly product sync — week ${week + 1}`,
          '',
          '- Beta adoption keeps growing; first-week retention is around 60%.',
          '- A crash caused by two background jobs writing the same record is fixed; the fix ships with a regression test.',
          '- The budget review moves to Thursday 10:00; bring next-quarter estimates.',
          '- Usability test with the pilot customer next Monday; Bob joins for the first hour.',
          '',
        ].join('\n'),
      },
    ];
    if (week === 4)
      summaries.push({
        id: 'sum_demo_weekly_5_decisions',
        title: 'Decisions',
        content: '## Decisions\n\n1. Ship the crash fix tomorrow, with its test.\n2. Crash-rate alert above 1% of sessions.\n3. Defend two more transcription servers at the budget review.\n',
      });
    meetings.push(
      record({
        id,
        title: 'Product weekly sync',
        startedAt: start,
        folder: 'Acme/Product',
        series,
        turns: weeklySync(week),
        participants: [p('alice'), p('bob'), p('chloe')],
        summaries,
        actionItems: [
          { id: `act_demo_weekly_${week + 1}_a`, text: 'Ship the crash fix with its regression test', assignee: 'Bob Chen', due_date: iso(start + DAY) },
          { id: `act_demo_weekly_${week + 1}_b`, text: 'Chase marketing for the onboarding copy', assignee: 'Alice Martin', due_date: iso(start) },
          { id: `act_demo_weekly_${week + 1}_c`, text: 'Prepare the transcription server estimate for the budget review', assignee: 'Bob Chen', due_date: iso(start + 3 * DAY) },
        ],
        note: week === 4 ? '- Ask finance whether the budget review can include the launch marketing spend.\n' : '',
        speakerContext: 'Meeting room microphone in the Paris office; Bob joined remotely over a video call.',
      }),
    );
  }

  meetings.push(
    record({
      id: 'mtg_demo_launch_planning',
      title: 'Launch planning: date, pricing and press',
      startedAt: at(1, 2, 14),
      folder: 'Acme/Product/Launch',
      turns: LAUNCH_PLANNING,
      participants: [p('alice'), p('bob'), p('chloe')],
      summaries: [
        {
          id: 'sum_demo_launch_planning',
          title: 'Summary',
          content:
            '## Launch plan\n\n- Release candidate on the 14th, one week of soak testing, public launch on the 22nd at the earliest.\n- Three plans: Free (10 h/month), Team ($12/seat, unlimited, reviewed quarterly), Enterprise (SSO, DPA).\n- Alice handles the press; Bob writes the local-first storage blog post.\n- A blocking bug found in the soak test moves the launch by one week at most.\n',
        },
      ],
      actionItems: [
        { id: 'act_demo_launch_pricing', text: 'Finish the pricing section of the landing page', assignee: 'Chloé Dubois', due_date: iso(at(1, 4, 12)) },
        { id: 'act_demo_launch_blog', text: 'Write the technical blog post on local-first storage', assignee: 'Bob Chen', due_date: null },
        { id: 'act_demo_launch_report', text: 'Usage report per team', assignee: 'Bob Chen', due_date: null },
      ],
      note: '## Open questions\n\n- Do we announce the enterprise plan at launch or a month later?\n',
    }),
    record({
      id: 'mtg_demo_interview_debrief',
      title: 'Interview debrief: senior backend engineer',
      startedAt: at(2, 3, 16),
      folder: 'Acme/Hiring',
      turns: INTERVIEW_DEBRIEF,
      participants: [p('dan'), p('bob')],
      summaries: [
        {
          id: 'sum_demo_interview_debrief',
          title: 'Summary',
          content: '## Debrief\n\nStrong system design (job queue with leases, retries, idempotency keys). TypeScript mostly front-end; ramp-up of a few weeks. Decision: **hire**. Answer due by Friday.\n',
        },
      ],
      actionItems: [
        { id: 'act_demo_interview_offer', text: 'Write the offer and send it to Alice for approval', assignee: 'Dan Okafor', due_date: iso(at(2, 3, 18)) },
        { id: 'act_demo_interview_refs', text: 'Ask for two references', assignee: 'Dan Okafor', due_date: null },
      ],
      note: '',
      speakerContext: 'Phone call recorded on Dan’s laptop.',
    }),
    record({
      id: 'mtg_demo_research_readout',
      title: 'Research readout: how people use meeting notes',
      startedAt: at(3, 1, 13),
      folder: 'Acme/Product/Research',
      turns: RESEARCH_READOUT,
      participants: [p('eva'), p('alice'), p('chloe')],
      summaries: [
        {
          id: 'sum_demo_research_readout',
          title: 'Summary',
          content:
            '## Findings (12 interviews, 5 companies)\n\n1. Nobody reads full transcripts; people search them for a remembered fragment.\n2. Summaries are read once, right after the meeting; search is used weeks later.\n3. A third already paste transcripts into assistants, but want their recordings to stay local.\n4. People want the assistant to suggest and to press the button themselves.\n',
        },
      ],
      actionItems: [{ id: 'act_demo_research_bets', text: 'Draft the three bets for next quarter', assignee: 'Alice Martin', due_date: iso(at(3, 3, 12)) }],
      note: '',
    }),
    record({
      id: 'mtg_demo_customer_call',
      title: 'Pilot customer call',
      startedAt: today - 2 * DAY + 15 * 3_600_000,
      folder: 'Acme/Customers/Pilot',
      turns: CUSTOMER_CALL,
      participants: [p('alice'), { name: 'Guest', email: null, role: 'Pilot customer' }],
      summaries: [],
      actionItems: [
        { id: 'act_demo_customer_guide', text: 'Send the export guide to the pilot customer', assignee: 'Alice Martin', due_date: iso(at(0, 3, 12)) },
        { id: 'act_demo_customer_language', text: 'File a request: set the transcription language per meeting', assignee: null, due_date: null },
      ],
      note: '',
    }),
    record({
      id: 'mtg_demo_one_on_one',
      title: '1:1 Alice / Bob',
      startedAt: at(1, 4, 11),
      folder: null,
      participants: [p('alice'), p('bob')],
      summaries: [],
      actionItems: [],
      note: '## 1:1\n\n- Bob wants to mentor the new backend hire.\n- Discuss the on-call load after the launch.\n',
    }),
  );
  return meetings;
}

const PROPOSED_SUMMARY = [
  '## Weekly product sync — week 5',
  '',
  '- Beta: 73 active teams; first-week retention holds at about 60%, above plan.',
  '- Crash spike on Tuesday traced to a race between two background jobs; the fix and its regression test ship tomorrow.',
  '- **The budget review moves to Thursday 10:00.** Bring next-quarter estimates (Bob: transcription servers, cost per team per month).',
  '- Onboarding copy is waiting for marketing review (Alice chases today).',
  '- Usability test with the pilot customer next Monday; Bob joins for the first hour.',
  '',
].join('\n');

export interface DemoResult {
  meetings: number;
  words: number;
  folders: string[];
  series: string;
  proposal: string;
}

/** Fills the database with the demo data set; idempotent (fixed ids, upserts). */
export async function loadDemo(store: Store, now = Date.now()): Promise<DemoResult> {
  const records = demoMeetings(now);
  const loaded = await store.admin.load(records, { source: 'demo' });
  for (const path of DEMO_EMPTY_FOLDERS) await store.folders.ensure(path);
  const target = records.find((r) => r.id === 'mtg_demo_weekly_5')!.summaries[0]!;
  await store.proposals.seed({
    id: DEMO_PROPOSAL_ID,
    meetingId: 'mtg_demo_weekly_5',
    kind: 'summary',
    targetId: target.id,
    content: PROPOSED_SUMMARY,
    baseContent: target.content,
    proposedBy: 'demo assistant',
    createdAt: new Date(now).toISOString(),
  });
  const folders = await store.folders.paths();
  return { meetings: loaded.meetings.length, words: loaded.meetings.reduce((n, m) => n + m.words, 0), folders, series: DEMO_SERIES_ID, proposal: DEMO_PROPOSAL_ID };
}
