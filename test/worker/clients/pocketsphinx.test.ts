import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTranscribeServer, type TranscribeServer } from '../../../tools/transcribe-server/server.js';
import { PermanentHttpError } from '../../../src/worker/clients/http.js';
import { transcribe, type Transcript } from '../../../src/worker/clients/transcription.js';
import { FORMATS, PASSAGES, fixturePath } from '../../support/speech-fixtures.js';
import { needs } from '../../support/system-tools.js';
import { normalizeWords, wordErrorRate } from '../../support/wer.js';

const execFileAsync = promisify(execFile);

// Real speech through the real recogniser: fixture -> transcribe() -> pocketsphinx server -> words.
// One recognition at a time (2-core CI); each fixture takes about 1.5 s.

const skip = needs('pocketsphinx', 'ffmpeg');

let server: TranscribeServer;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syntheo-pocketsphinx-test-'));
  server = await startTranscribeServer({ maxUploadBytes: 1024 * 1024 });
});
afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const opts = { api: 'openai' as const, model: 'pocketsphinx-en-us', timeoutMs: 60_000, retry: { retries: 0 } };

// Each format with a different passage in turn, so all passages and all formats are covered.
const cases = FORMATS.map((format, i) => ({ format, passage: PASSAGES[i % PASSAGES.length]! }));

describe.skipIf(skip)('pocketsphinx transcription server', () => {
  it.each(cases)('$format ($passage.name): keywords recognised, word times increasing', { timeout: 30_000 }, async ({ format, passage }) => {
    const t: Transcript = await transcribe(fixturePath(passage.name, format), { ...opts, url: server.url });
    const heard = normalizeWords(t.text);
    expect(passage.keywords.filter((k) => !heard.includes(k))).toEqual([]);
    expect(wordErrorRate(passage.text, t.text)).toBeLessThan(0.35); // measured 6-25 %
    expect(t.timing).toBe('server');
    expect(t.language).toBe('english');
    expect(t.durationMs).toBeGreaterThan(5500);
    expect(t.durationMs).toBeLessThan(7500);
    expect(t.words.map((w) => w.text).join(' ')).toBe(t.text);
    for (let i = 0; i < t.words.length; i++) {
      const w = t.words[i]!;
      expect(w.endMs).toBeGreaterThan(w.startMs);
      if (i > 0) expect(w.startMs).toBeGreaterThan(t.words[i - 1]!.endMs - 1);
    }
    expect(t.words.at(-1)!.endMs).toBeLessThanOrEqual(t.durationMs!);
  });

  it('answers json, text and verbose_json like OpenAI', { timeout: 30_000 }, async () => {
    // The shapes do not depend on the words: a 2.5 s cut keeps each recognition short.
    const clip = join(dir, 'clip.flac');
    await execFileAsync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', fixturePath('launch', 'flac'), '-t', '2.5', clip]);
    const file = new Blob([await readFile(clip)]);
    const ask = async (fields: Record<string, string | string[]>): Promise<Response> => {
      const form = new FormData();
      form.append('file', file, 'clip.flac');
      for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
      return fetch(`${server.url}/v1/audio/transcriptions`, { method: 'POST', body: form });
    };
    const json = (await (await ask({ model: 'x' })).json()) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(['text']);
    expect(normalizeWords(json.text as string)).toContain('product');

    const text = await ask({ response_format: 'text' });
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await text.text()).toBe(`${json.text as string}\n`);

    const verbose = (await (await ask({ response_format: 'verbose_json', 'timestamp_granularities[]': ['word', 'segment'] })).json()) as {
      task: string;
      language: string;
      duration: number;
      text: string;
      segments: { id: number; start: number; end: number; text: string }[];
      words: { word: string; start: number; end: number }[];
    };
    expect([verbose.task, verbose.language, verbose.text]).toEqual(['transcribe', 'english', json.text]);
    expect(verbose.duration).toBeCloseTo(2.5, 1);
    expect(verbose.segments.length).toBeGreaterThan(0);
    expect(verbose.segments.map((s) => s.text.trim()).join(' ')).toBe(json.text);
    expect(verbose.words.map((w) => w.word).join(' ')).toBe(json.text);
    expect(verbose.words.some((w) => /^<|^\[|\(\d\)$/.test(w.word))).toBe(false);

    const segmentsOnly = (await (await ask({ response_format: 'verbose_json' })).json()) as Record<string, unknown>;
    expect('words' in segmentsOnly).toBe(false);
    expect(Array.isArray(segmentsOnly.segments)).toBe(true);
  });

  it('rejects what it cannot use with OpenAI-style errors', async () => {
    const post = async (form: FormData): Promise<{ status: number; body: unknown }> => {
      const res = await fetch(`${server.url}/v1/audio/transcriptions`, { method: 'POST', body: form });
      return { status: res.status, body: await res.json() };
    };
    const noFile = new FormData();
    noFile.append('model', 'x');
    expect(await post(noFile)).toEqual({
      status: 400,
      body: { error: { message: "No audio: send the recording in a multipart form field named 'file'.", type: 'invalid_request_error', param: 'file', code: null } },
    });

    const notAudio = new FormData();
    notAudio.append('file', new Blob(['this is a meeting note, not audio']), 'note.wav');
    const bad = await post(notAudio);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_file_format', param: 'file' } });
    expect((bad.body as { error: { message: string } }).error.message).toMatch(/^Could not decode the audio file \(.+\)\. Send WAV, MP3/);

    const srt = new FormData();
    srt.append('file', new Blob(['x']), 'a.wav');
    srt.append('response_format', 'srt');
    expect((await post(srt)).body).toMatchObject({ error: { param: 'response_format', code: 'unsupported_value' } });

    const res = await fetch(`${server.url}/health`);
    expect(await res.json()).toEqual({ status: 'ok', model: 'pocketsphinx-en-us', queued: 0, running: 0 });
  });

  it('answers 413 past maxUploadBytes, and the client reports it as permanent', async () => {
    const big = join(dir, 'big.wav');
    await writeFile(big, Buffer.alloc(3 * 1024 * 1024));
    const err = await transcribe(big, { ...opts, url: server.url }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentHttpError);
    expect((err as PermanentHttpError).status).toBe(413);
    expect((err as Error).message).toBe(
      `Transcription server at ${server.url}/v1/audio/transcriptions rejected the request (HTTP 413: The upload is larger than this server accepts (1 MiB)). The server limits the upload size; the recording has to be sent in smaller pieces.`,
    );
  });
});
