// Colour per no-color.org and FORCE_COLOR, flags, TERM=dumb; live progress only on a terminal that can redraw.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HAS_SCRIPT, fakeWorker, run, runInTerminal, startInTerminal, writeWav } from './cli.js';
import { openTestDb } from '../support/db.js';
import { makeMeeting, makeSummary } from '../support/factories.js';
import { proposeSummaryEdit } from '../../src/db/queries/proposals.js';

let db: ReturnType<typeof openTestDb>;
let id: string;
beforeEach(() => {
  db = openTestDb();
  const meetingId = makeMeeting(db.sqlite, { title: 'Launch review' });
  makeSummary(db.sqlite, meetingId, { content: 'old\n' });
  id = proposeSummaryEdit(db.sqlite, { meetingId, content: 'new\n', proposedBy: 'test' }).id;
});
afterEach(() => db.cleanup());

const RED_LINE = '\x1b[31m-old\x1b[39m';
const show = () => ['--db', db.path, 'proposals', 'show', id];

describe('piped output', () => {
  it('has no colour by default, and colour with --color or FORCE_COLOR (for less -R)', async () => {
    expect((await run(show())).stdout).not.toContain('\x1b');
    const flag = await run([...show(), '--color']);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain(RED_LINE);
    expect((await run(show(), { env: { FORCE_COLOR: '1' } })).stdout).toContain(RED_LINE);
    expect((await run(show(), { env: { FORCE_COLOR: '0' } })).stdout).not.toContain('\x1b');
  });

  it('--no-color is accepted and wins over FORCE_COLOR', async () => {
    const r = await run([...show(), '--no-color'], { env: { FORCE_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('\x1b');
  });
});

describe.skipIf(!HAS_SCRIPT)('on a terminal', () => {
  it('colours by default; NO_COLOR, --no-color and TERM=dumb turn it off', async () => {
    expect((await runInTerminal(show())).stdout).toContain(RED_LINE);
    for (const [args, env] of [
      [[], { NO_COLOR: '1' }],
      [['--no-color'], {}],
      [[], { TERM: 'dumb' }],
    ] as const) {
      const r = await runInTerminal([...show(), ...args], { env });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('-old');
      expect(r.stdout).not.toContain('\x1b');
    }
  });

  /** `imports add --wait` on a terminal, the job driven to failed by this test as a worker would. */
  async function waitOutput(env: Record<string, string>): Promise<string> {
    writeWav(join(db.dir, 'call.wav'));
    fakeWorker(db.sqlite);
    const cli = startInTerminal(['--db', db.path, 'imports', 'add', join(db.dir, 'call.wav'), '--wait'], { env });
    let job: string | undefined;
    for (let i = 0; i < 200 && !job; i++) {
      job = (db.sqlite.prepare("SELECT id FROM recording_imports WHERE status <> 'failed'").get() as { id: string } | undefined)?.id;
      if (!job) await sleep(50);
    }
    await sleep(1200);
    db.sqlite.prepare("UPDATE recording_imports SET status = 'failed', error = 'boom', finished_at = ? WHERE id = ?").run(new Date().toISOString(), job);
    const r = await cli.result;
    expect(r.code).toBe(1);
    return r.stdout;
  }

  it('the live progress line redraws in place, except with TERM=dumb', async () => {
    expect(await waitOutput({})).toContain('\r\x1b[2K');
    const dumb = await waitOutput({ TERM: 'dumb' });
    expect(dumb).not.toContain('\x1b');
    expect(dumb).toMatch(/^\[0:\d\d\] queued$/m);
    expect(dumb).toContain('failed after');
  });
});
