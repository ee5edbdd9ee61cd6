// No answer over 25,000 tokens, however big the texts behind it: a 1 MiB proposal, a meeting with a
// 1 MiB note and a 1 MiB summary, tens of thousands of action items. Tokens are counted with o200k
// (gpt-tokenizer) on what the model reads: structuredContent as JSON, and the text block.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { ANSWER_LIMIT, answerTokens, tokens } from '../../bench/tokens.js';
import { MAX_PROPOSAL_BYTES } from '../../src/db/queries/proposals.js';
import { unifiedDiff } from '../../src/text/diff.js';
import { openTestDb } from '../support/db.js';
import { serve, type Served } from '../support/engine.js';
import { makeActionItem, makeMeeting, makeParticipant, makeSummary, makeTranscript } from '../support/factories.js';
import { call, connectV1, connectV2 } from '../support/mcp.js';

let db: ReturnType<typeof openTestDb>;
let client: Client;
let close: () => Promise<void>;
let served: Served;

/** At most `bytes` bytes of Markdown (within a line of it) in lines, English with a little French and Chinese, line `i` unique. */
function markdown(bytes: number, tag: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; ; i++) {
    const line = `- ${tag} ${i}: the team agreed to review the budget, ship the beta on Monday and ask Chloé about the 预算 before the retro.\n`;
    size += Buffer.byteLength(line);
    if (size > bytes) return lines.join('');
    lines.push(line);
  }
}

/** What the model reads of a tool answer, in tokens, for both kinds of clients. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read fields freely
async function measured(name: string, args: Record<string, unknown>): Promise<{ out: any; structured: number; content: number; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as { content: { type: string; text?: string }[]; structuredContent: unknown; isError?: boolean };
  expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
  return { out: result.structuredContent, ...answerTokens(result), text: result.content.map((c) => c.text ?? '').join('\n') };
}

/** Checks that each hunk's header counts the lines under it: the (cut) diff is still one `patch` applies. */
function hunksOf(diff: string): string[][] {
  const hunks: string[][] = [];
  for (const line of diff.trimEnd().split('\n')) {
    if (line.startsWith('@@ ')) hunks.push([line]);
    else if (hunks.length) hunks.at(-1)!.push(line);
  }
  for (const [header, ...body] of hunks) {
    const m = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@$/.exec(header!)!;
    expect(m, header).not.toBeNull();
    const count = (marks: string) => body.filter((l) => marks.includes(l[0]!)).length;
    expect([count(' -'), count(' +')], header).toEqual([Number(m[1] ?? 1), Number(m[2] ?? 1)]);
  }
  return hunks;
}

let smallNote: string;
let bigMeeting: string;
let bigNote: string;
let bigSummary: string;
let manyItems: string;
let summaryMeeting: string;
let summaryBase: string;
let longTitle: string;
let fitting: { id: string; note: string };
const hugeTitle = `Quarterly review ${'and planning '.repeat(25_000)}`;

beforeAll(async () => {
  db = openTestDb();
  const s = db.sqlite;
  smallNote = makeMeeting(s, { title: 'Small note', note: '# Notes\n\nShort.\n' });
  bigNote = markdown(1024 * 1024, 'note');
  bigSummary = markdown(1024 * 1024, 'summary');
  bigMeeting = makeMeeting(s, { title: 'Huge note and summary', note: bigNote, speakers: ['Alice', 'Bob'], speakerContext: 'Room microphone.' });
  makeSummary(s, bigMeeting, { title: 'Summary', content: bigSummary });
  makeSummary(s, bigMeeting, { title: 'Decisions', content: '- Ship the beta on Monday.\n', position: 1 });
  makeParticipant(s, bigMeeting, { name: 'Alice', email: 'alice@example.com' });
  makeActionItem(s, bigMeeting, { text: 'Send the notes', assignee: 'Bob' });
  makeTranscript(s, bigMeeting, { words: 3_000 });
  manyItems = makeMeeting(s, { title: 'Endless action items', note: 'Short note.\n' });
  for (let i = 0; i < 30_000; i++) makeActionItem(s, manyItems, { text: `Follow up on point ${i} with the vendor`, assignee: 'Dan', position: i });
  // A summary of 3,000 long lines, every 12th then changed: 250 hunks of ~1.5 KB, far more than one answer.
  summaryBase = Array.from({ length: 3_000 }, (_, i) => `Line ${i}: ${'the quarterly planning discussion went on about hiring and budget, '.repeat(3)}\n`).join('');
  summaryMeeting = makeMeeting(s, { title: 'Many small edits' });
  makeSummary(s, summaryMeeting, { content: summaryBase });
  // A title of 325 KB, as `syntheo load` accepts it.
  longTitle = makeMeeting(s, { title: hugeTitle, note: 'Short note.\n' });
  const note = markdown(30_000, 'fits');
  fitting = { id: makeMeeting(s, { title: 'Long but fitting note', note }), note };
  served = await serve(db.path);
  ({ client, close } = await connectV2(served.location, 'modern'));
}, 120_000);

afterAll(async () => {
  await close?.();
  db?.cleanup();
});

describe('a 1 MiB proposal', () => {
  let proposalId: string;
  const content = () => markdown(MAX_PROPOSAL_BYTES, 'proposed');

  it(`propose_memo_edit answers within ${ANSWER_LIMIT} tokens, the diff cut and announced; the database keeps it whole`, async () => {
    const full = content();
    const { out, structured, content: text } = await measured('propose_memo_edit', { meeting_id: smallNote, content: full });
    proposalId = out.id;
    expect(structured).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(text).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(out.status).toBe('pending');
    const [stored] = await served.sql<{ content: string }>('SELECT content FROM proposals WHERE id = ?', proposalId);
    expect(stored!.content).toBe(full);
    const fullDiff = unifiedDiff('# Notes\n\nShort.\n', full, 'note.md');
    expect(out.truncated.fields).toContainEqual({ field: 'diff', unit: 'characters', shown: out.diff.length, total: fullDiff.length });
    expect(out.truncated.read_rest).toContain(`syntheo proposals show ${proposalId}`);
    expect(full.startsWith(out.content)).toBe(true);
  }, 60_000);

  it(`get_proposal and decline_proposal answer within ${ANSWER_LIMIT} tokens, with the diff's first lines as a hunk patch applies`, async () => {
    const full = content();
    for (const [name, status] of [['get_proposal', 'pending'], ['decline_proposal', 'declined']] as const) {
      const { out, structured, content: text, text: block } = await measured(name, { proposal_id: proposalId });
      expect(structured, name).toBeLessThanOrEqual(ANSWER_LIMIT);
      expect(text, name).toBeLessThanOrEqual(ANSWER_LIMIT);
      expect(out.status).toBe(status);
      // One big hunk (the whole note replaced): its first lines, the header recounted; base and content share nothing left.
      // (After jsdiff's note that the changes are too many to compare line by line.)
      expect(out.diff).toMatch(/^\(The changes are too many[^\n]*\n--- a\/note\.md\n\+\+\+ b\/note\.md\n@@ -1,3 \+1,\d+ @@\n-# Notes\n/);
      const [hunk, ...more] = hunksOf(out.diff);
      expect(more).toEqual([]);
      expect(hunk!.length).toBeGreaterThan(100);
      expect(full.startsWith(out.diff.split('\n').filter((l: string) => l.startsWith('+') && !l.startsWith('+++')).map((l: string) => `${l.slice(1)}\n`).join(''))).toBe(true);
      expect(out.truncated.reason).toMatch(/first lines of its first hunk/);
      expect(block).toContain(`[Cut]`);
      expect(block).toContain(`syntheo proposals show ${proposalId}`);
    }
  }, 60_000);

  it('a diff of many hunks is cut at a hunk boundary (propose_summary_edit)', async () => {
    const changed = summaryBase.split(/(?<=\n)/).map((l, i) => (i % 12 === 5 ? `Changed ${i}: ${l}` : l)).join('');
    const { out, structured, content: text } = await measured('propose_summary_edit', { meeting_id: summaryMeeting, content: changed });
    expect(structured).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(text).toBeLessThanOrEqual(ANSWER_LIMIT);
    const whole = unifiedDiff(summaryBase, changed, `summary-${out.target_id}.md`);
    const all = hunksOf(whole);
    const shown = hunksOf(out.diff);
    expect(all).toHaveLength(250);
    expect(shown.length).toBeGreaterThan(5);
    expect(shown.length).toBeLessThan(250);
    // A prefix of the whole diff that ends where the next hunk starts.
    expect(whole.startsWith(out.diff)).toBe(true);
    expect(whole.slice(out.diff.length).startsWith('@@ ')).toBe(true);
    expect(out.truncated.reason).toContain(`stops after ${shown.length} of its 250 hunks`);
    const fields = Object.fromEntries(out.truncated.fields.map((f: { field: string; shown: number; total: number }) => [f.field, f]));
    expect(fields.diff).toEqual({ field: 'diff', unit: 'characters', shown: out.diff.length, total: whole.length });
    expect(Object.keys(fields).sort()).toEqual(['base_content', 'content', 'diff']);
  }, 60_000);
});

describe('a meeting with a 1 MiB note and a 1 MiB summary', () => {
  it(`get_meeting answers within ${ANSWER_LIMIT} tokens: note and summary cut fairly and announced, the small fields whole`, async () => {
    const { out, structured, content: text, text: block } = await measured('get_meeting', { meeting_id: bigMeeting });
    expect(structured).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(text).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(bigNote.startsWith(out.note)).toBe(true);
    expect(bigSummary.startsWith(out.summaries[0].content)).toBe(true);
    expect(out.note.length).toBeGreaterThan(5_000);
    expect(out.summaries[0].content.length).toBeGreaterThan(5_000);
    expect(out.summaries[1].content).toBe('- Ship the beta on Monday.\n');
    expect(out.action_items).toMatchObject([{ text: 'Send the notes', assignee: 'Bob' }]);
    expect(out.participants).toMatchObject([{ name: 'Alice', email: 'alice@example.com' }]);
    expect(out.transcript.word_count).toBe(3_000);
    expect(out.truncated.fields).toEqual([
      { field: 'note', unit: 'characters', shown: out.note.length, total: bigNote.length },
      { field: 'summaries[0].content', unit: 'characters', shown: out.summaries[0].content.length, total: bigSummary.length },
    ]);
    expect(out.truncated.read_rest).toContain(`syntheo meetings get ${bigMeeting}`);
    expect(block).toContain(`[Cut]`);
    expect(block).toContain(`note: ${out.note.length} of ${bigNote.length} characters shown`);
    // What read_rest says works: search finds a passage of the note past the cut.
    expect(out.note).not.toContain('- note 7000:');
    const { hits } = await call(client, 'search_transcripts', { query: '7000' });
    expect(hits).toContainEqual(expect.objectContaining({ meeting_id: bigMeeting, kind: 'note', snippet: expect.stringContaining('**7000**') }));
  }, 60_000);

  it(`the meeting resource stays within ${ANSWER_LIMIT} tokens and says what was cut`, async () => {
    const { contents } = await client.readResource({ uri: `syntheo://meetings/${bigMeeting}` });
    const text = contents.map((c) => ('text' in c ? c.text : '')).join('\n');
    expect(tokens(text)).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(text).toContain('## Decisions');
    expect(text).toMatch(new RegExp(`\\[Cut\\] .*note: \\d+ of ${bigNote.length} characters shown; summaries\\[0\\]\\.content: \\d+ of ${bigSummary.length} characters shown`));
  }, 60_000);

  it(`export_meeting stays within ${ANSWER_LIMIT} tokens: note and summary cut, the transcript cut where the pages take over`, async () => {
    const { out, structured, content: text } = await measured('export_meeting', { meeting_id: bigMeeting });
    expect(structured).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(text).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(bigNote.startsWith(out.note)).toBe(true);
    expect(out.note.length).toBeGreaterThan(2_000);
    const included = out.transcripts[0].segments.reduce((n: number, seg: { times: unknown[] }) => n + seg.times.length, 0);
    expect(included).toBeGreaterThan(100);
    expect(included).toBeLessThan(3_000);
    expect(out.truncated).toMatchObject({ transcript_words_included: included, next_offset: included });
    expect(out.truncated.read_rest).toContain(`offset ${included} and limit 500`);
    expect(out.truncated.read_rest).toContain(`syntheo meetings get ${bigMeeting}`);
    expect(out.truncated.fields).toEqual([
      { field: 'note', unit: 'characters', shown: out.note.length, total: bigNote.length },
      { field: 'summaries[0].content', unit: 'characters', shown: out.summaries[0].content.length, total: bigSummary.length },
    ]);
  }, 60_000);

  it(`30,000 action items: get_meeting, the resource and export_meeting stay within ${ANSWER_LIMIT} tokens, the list cut and announced`, async () => {
    for (const name of ['get_meeting', 'export_meeting']) {
      const { out, structured, content: text } = await measured(name, { meeting_id: manyItems });
      expect(structured, name).toBeLessThanOrEqual(ANSWER_LIMIT);
      expect(text, name).toBeLessThanOrEqual(ANSWER_LIMIT);
      expect(out.action_items.length, name).toBeGreaterThan(20);
      expect(out.action_items[0]).toMatchObject({ text: 'Follow up on point 0 with the vendor' });
      expect(out.truncated.fields, name).toContainEqual({ field: 'action_items', unit: 'items', shown: out.action_items.length, total: 30_000 });
    }
    const { contents } = await client.readResource({ uri: `syntheo://meetings/${manyItems}` });
    const text = contents.map((c) => ('text' in c ? c.text : '')).join('\n');
    expect(tokens(text)).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(text).toMatch(/action_items: \d+ of 30000 items shown/);
  }, 60_000);
});

describe('a meeting that fits', () => {
  it('a 30 KB note without a transcript comes whole from get_meeting and export_meeting, without truncated', async () => {
    const { id, note } = fitting;
    for (const name of ['get_meeting', 'export_meeting']) {
      const { out } = await measured(name, { meeting_id: id });
      expect(out.note, name).toBe(note);
      expect(out.truncated, name).toBeUndefined();
    }
  });
});

describe('a meeting with a 325 KB title', () => {
  it(`get_meeting and a proposal on it answer within ${ANSWER_LIMIT} tokens, the title cut and announced`, async () => {
    const meeting = await measured('get_meeting', { meeting_id: longTitle });
    expect(meeting.structured).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(meeting.content).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(meeting.out.note).toBe('Short note.\n');
    expect(meeting.out.truncated.fields).toEqual([{ field: 'title', unit: 'characters', shown: meeting.out.title.length, total: hugeTitle.length }]);
    const proposal = await measured('propose_memo_edit', { meeting_id: longTitle, content: 'A new note.\n' });
    expect(proposal.structured).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(proposal.content).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(proposal.out.diff).toBe('--- a/note.md\n+++ b/note.md\n@@ -1 +1 @@\n-Short note.\n+A new note.\n');
    expect(proposal.out.truncated.fields).toEqual([{ field: 'meeting_title', unit: 'characters', shown: proposal.out.meeting_title.length, total: hugeTitle.length }]);
  }, 60_000);
});

describe('cut answers against every client', () => {
  for (const kind of ['v1', 'v2 legacy'] as const) {
    it(`${kind}: get_meeting, export_meeting and get_proposal validate against their output schemas when cut`, async () => {
      const connected = kind === 'v1' ? await connectV1(served.location) : await connectV2(served.location, 'legacy');
      try {
        const c = connected.client;
        await c.listTools(); // then the clients validate structuredContent against each outputSchema
        expect((await call(c, 'get_meeting', { meeting_id: bigMeeting })).truncated.fields).toHaveLength(2);
        expect((await call(c, 'export_meeting', { meeting_id: bigMeeting })).truncated.fields).toHaveLength(2);
        const id = (await served.sql<{ id: string }>('SELECT id FROM proposals ORDER BY length(content) DESC LIMIT 1'))[0]!.id;
        expect((await call(c, 'get_proposal', { proposal_id: id })).truncated.fields.map((f: { field: string }) => f.field)).toContain('diff');
      } finally {
        await connected.close();
      }
    }, 60_000);
  }
});
