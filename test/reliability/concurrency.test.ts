// 8 `syntheo mcp` processes, 2 workers and the user's side (CLI and direct decisions) on one database
// for a fixed period, mixing reads, proposals, declines, applies and imports with shared and unique
// request_keys. No busy/locked error reaches anyone, no key gets two jobs, no job is processed twice,
// every proposal is readable afterwards.
import { copyFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type SyntheoDb } from '../../src/db/open.js';
import { applyProposalOrThrow, declineProposalOrThrow } from '../../src/db/queries/proposals.js';
import { writeSetting } from '../../src/db/queries/settings.js';
import { isSyntheoError } from '../../src/errors.js';
import { makeMeeting, makeSummary, makeTranscript } from '../support/factories.js';
import { tempDir } from '../support/db.js';
import { BUDGET_WORDS, startFakeTranscriptionServer } from '../support/fake-transcription-server.js';
import { startLlmServer } from '../support/llm-server.js';
import { fixturePath } from '../support/speech-fixtures.js';
import { startWorker, waitForImport, type WorkerProcess } from '../support/worker-process.js';
import { run } from '../cli/cli.js';
import { seed } from './support/fixtures.js';
import { invariantProblems } from './support/invariants.js';
import { connectTapped, type TappedClient } from './support/sessions.js';
import { startSlowProxy } from './support/slow-proxy.js';
import { periodMs, timeoutMs } from './support/soak.js';

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!;

interface Outcome {
  client: number;
  tool: string;
  ok: boolean;
  code?: number;
  message?: string;
  kind?: string;
}

describe('8 MCP servers, 2 workers and the user on one database', () => {
  it(
    'never lets busy/locked reach a client, never duplicates a job for a key nor processes one twice, and keeps every proposal readable',
    async () => {
      const { dir, cleanup } = tempDir('syntheo-concurrency-');
      cleanups.push(cleanup);
      const path = join(dir, 'syntheo.db');
      const db: SyntheoDb = openDatabase(path, { create: true });
      cleanups.push(() => db.close());
      const ids = seed(db.sqlite);
      const meetings = [...ids.meetings];
      for (let i = 0; i < 6; i++) {
        const id = makeMeeting(db.sqlite, { title: `Standup ${i}`, folderPath: 'Projets/Lancement' });
        makeSummary(db.sqlite, id, { content: `Summary ${i}` });
        makeTranscript(db.sqlite, id, { words: 400 });
        meetings.push(id);
      }

      const transcription = await startFakeTranscriptionServer();
      const llm = await startLlmServer();
      const slowT = await startSlowProxy(transcription.url, () => 20 + Math.random() * 150);
      const slowL = await startSlowProxy(llm.url, () => 20 + Math.random() * 150);
      cleanups.push(() => transcription.close(), () => llm.close(), () => slowT.close(), () => slowL.close());
      writeSetting(db.sqlite, 'transcription.url', slowT.url);
      writeSetting(db.sqlite, 'llm.url', slowL.url);
      writeSetting(db.sqlite, 'llm.model', 'test-model');

      const workers: WorkerProcess[] = await Promise.all([0, 1].map(() => startWorker(path, { env: { SYNTHEO_WORKER_CONCURRENCY: '2' } })));
      cleanups.push(() => Promise.all(workers.map((w) => w.stop('SIGKILL'))));
      const clients: TappedClient[] = await Promise.all(Array.from({ length: 8 }, (_, i) => connectTapped(path, { mode: i % 2 === 0 ? 'modern' : 'legacy' })));
      cleanups.push(() => Promise.all(clients.map((c) => c.close())));

      // One file per shared key (the same key with another file would be a conflict, rightly).
      const sharedKeys = Array.from({ length: 6 }, (_, i) => `shared-${i}`);
      const fileFor = new Map(sharedKeys.map((k, i) => [k, copy(dir, `shared-${i}.mp3`)]));
      const spare = copy(dir, 'spare.mp3');

      const outcomes: Outcome[] = [];
      const jobsByKey = new Map<string, Set<string>>();
      const jobIds = new Set<string>();
      const proposals = new Map<string, string>(); // id -> content
      const declined = new Set<string>();
      const applied = new Set<string>();
      const deadline = Date.now() + periodMs(8_000);
      const activeJobs = db.sqlite.prepare("SELECT count(*) FROM recording_imports WHERE status NOT IN ('done', 'failed')").pluck();

      const clientLoop = async (n: number, session: TappedClient) => {
        for (let k = 0; Date.now() < deadline; k++) {
          const [tool, args] = nextCall(n, k);
          try {
            const result = (await session.client.callTool({ name: tool, arguments: args })) as { structuredContent: Record<string, string> };
            const out = result.structuredContent;
            outcomes.push({ client: n, tool, ok: true });
            if (tool === 'import_recording') {
              jobIds.add(out.job_id!);
              if (typeof args.request_key === 'string') {
                if (!jobsByKey.has(args.request_key)) jobsByKey.set(args.request_key, new Set());
                jobsByKey.get(args.request_key)!.add(out.job_id!);
              }
            }
            if (tool.startsWith('propose_')) proposals.set(out.id!, args.content as string);
            if (tool === 'decline_proposal') declined.add(out.id!);
          } catch (error) {
            const e = error as { code?: number; message?: string; data?: { kind?: string } };
            outcomes.push({ client: n, tool, ok: false, code: e.code, message: e.message, kind: e.data?.kind });
          }
        }
      };

      const nextCall = (n: number, k: number): [string, Record<string, unknown>] => {
        const roll = Math.random();
        const meeting = pick(meetings);
        if (roll < 0.45)
          return pick<[string, Record<string, unknown>]>([
            ['list_meetings', { query: pick(['stand', 'budget', '', 'Réunion']), limit: 50 }],
            ['get_meeting', { meeting_id: meeting }],
            ['get_meeting_transcript', { meeting_id: meeting, offset: Math.floor(Math.random() * 300), limit: 100 }],
            ['search_transcripts', { query: pick(['budget review', 'w12 w13', 'Thursday']) }],
            ['list_proposals', { status: 'all', limit: 100 }],
            ['export_meeting', { meeting_id: meeting }],
            ['list_folders', {}],
            jobIds.size ? ['get_recording_import', { job_id: pick([...jobIds]) }] : ['list_folders', { query: 'Projets' }],
          ]);
        if (roll < 0.62) return ['propose_memo_edit', { meeting_id: meeting, content: `# Note from client ${n}, call ${k}\n\n${'Agreed next steps. '.repeat(50)}` }];
        if (roll < 0.7) return ['propose_summary_edit', { meeting_id: ids.oneSummary, content: `Summary from client ${n}, call ${k}.` }];
        if (roll < 0.8 && proposals.size) return ['decline_proposal', { proposal_id: pick([...proposals.keys()]) }];
        // Imports only while the workers keep up: a soak must not end with an hour of queue to drain.
        if ((activeJobs.get() as number) > 12) return ['get_meeting', { meeting_id: meeting }];
        const key = Math.random();
        if (key < 0.5) {
          const shared = pick(sharedKeys);
          return ['import_recording', { file_path: fileFor.get(shared)!, request_key: shared }];
        }
        if (key < 0.75) return ['import_recording', { file_path: spare, request_key: `unique-${n}-${k}` }];
        return ['import_recording', { file_path: spare, title: `No key ${n}.${k}` }];
      };

      // The user's side: decisions from this process, and the CLI as a separate process now and then.
      const userLoop = async () => {
        const errors: string[] = [];
        for (let k = 0; Date.now() < deadline; k++) {
          const candidates = [...proposals.keys()].filter((id) => !declined.has(id) && !applied.has(id));
          if (candidates.length) {
            const id = pick(candidates);
            try {
              if (k % 3 === 0) {
                const r = await run(['--db', path, '--json', 'proposals', k % 2 ? 'apply' : 'decline', id, ...(k % 2 ? ['--force'] : [])]);
                if (r.code === 0) (k % 2 ? applied : declined).add(id);
                else if (!/already (declined|applied)|was deleted/.test(r.stdout)) errors.push(`CLI: ${r.stdout}${r.stderr}`);
              } else if (k % 3 === 1) {
                applyProposalOrThrow(db.sqlite, id, { force: true });
                applied.add(id);
              } else {
                declineProposalOrThrow(db.sqlite, id);
                declined.add(id);
              }
            } catch (error) {
              if (!(isSyntheoError(error) && error.kind === 'conflict')) errors.push(String(error));
            }
          }
          await sleep(40);
        }
        return errors;
      };

      const [userErrors] = await Promise.all([userLoop(), ...clients.map((c, n) => clientLoop(n, c))]);
      // Checkpoints keep up with 8 readers and the writers: the WAL does not grow without bound.
      expect(statSync(`${path}-wal`).size).toBeLessThan(64 * 1024 * 1024);

      // No busy or locked error reached anyone; the only refusals are decisions on decided proposals.
      expect(userErrors).toEqual([]);
      const failures = outcomes.filter((o) => !o.ok);
      expect(failures.filter((o) => /busy|locked/i.test(o.message ?? ''))).toEqual([]);
      expect(failures.filter((o) => !(o.tool === 'decline_proposal' && o.kind === 'conflict'))).toEqual([]);
      expect(outcomes.filter((o) => o.ok).length).toBeGreaterThan(200);
      for (const c of clients) {
        expect(c.stdout.violations).toEqual([]);
        expect(c.protocolErrors).toEqual([]);
      }

      // One job per request_key, whoever asked and however often.
      for (const [key, jobs] of jobsByKey) expect([key, jobs.size]).toEqual([key, 1]);
      expect(db.sqlite.prepare('SELECT request_key, count(*) AS n FROM recording_imports WHERE request_key IS NOT NULL GROUP BY request_key HAVING n > 1').all()).toEqual([]);

      // Every job ends done, processed once: one upload, one transcript's worth of words, one summary.
      for (const id of jobIds) expect((await waitForImport(db.sqlite, id, { timeoutMs: 60_000 })).processing_status, id).toBe('done');
      const jobs = db.sqlite
        .prepare(`SELECT j.id, coalesce((SELECT word_count FROM transcripts t WHERE t.meeting_id = j.meeting_id), 0) AS words,
                  (SELECT count(*) FROM summaries s WHERE s.meeting_id = j.meeting_id AND s.source = 'llm') AS summaries FROM recording_imports j`)
        .all() as { id: string; words: number; summaries: number }[];
      expect(jobs).toHaveLength(jobIds.size);
      for (const j of jobs) expect(j, j.id).toEqual({ id: j.id, words: BUDGET_WORDS.length, summaries: 1 });
      const uploads = transcription.requests.filter((r) => r.method === 'POST');
      expect(uploads).toHaveLength(jobIds.size);
      const claims = workers.flatMap((w) => w.logs.filter((l) => l.msg === 'import claimed').map((l) => l.jobId as string));
      expect(claims.sort()).toEqual([...jobIds].sort());
      expect(workers.every((w) => w.logs.some((l) => l.msg === 'import claimed'))).toBe(true);

      // Every proposal made is readable, whole, from a process that did not make it.
      const reader = clients[0]!;
      for (const [id, content] of proposals) {
        const got = (await reader.client.callTool({ name: 'get_proposal', arguments: { proposal_id: id } })) as { structuredContent: { content: string; status: string } };
        expect(got.structuredContent.content).toBe(content);
        if (declined.has(id)) expect(got.structuredContent.status).toBe('declined');
        if (applied.has(id)) expect(got.structuredContent.status).toBe('applied');
      }
      expect(proposals.size).toBeGreaterThan(20);
      expect(invariantProblems(db.sqlite, { terminal: true })).toEqual([]);
    },
    timeoutMs(150_000),
  );
});

function copy(dir: string, name: string): string {
  const to = join(dir, name);
  copyFileSync(fixturePath('budget', 'mp3'), to);
  return to;
}
