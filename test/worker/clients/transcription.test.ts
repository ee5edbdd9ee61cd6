import { appendFile, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PermanentHttpError, TransientHttpError } from '../../../src/worker/clients/http.js';
import { MAX_TRANSCRIPT_WORDS, RecordingUnreadableError, normalizeTranscription, transcribe, type TranscribeOptions, type Transcript } from '../../../src/worker/clients/transcription.js';
import { BUDGET_WORDS, fault, startFakeTranscriptionServer, type FakeTranscriptionServer } from '../../support/fake-transcription-server.js';
import { fixturePath } from '../../support/speech-fixtures.js';
import { runBuilt } from '../bounded.js';

const AUDIO = fixturePath('budget', 'mp3');
const SAID = BUDGET_WORDS.map((w) => w.text.replace(/[.,]$/, ''));

let dir: string;
const servers: FakeTranscriptionServer[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'syntheo-transcription-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function server(opts: Parameters<typeof startFakeTranscriptionServer>[0] = {}): Promise<FakeTranscriptionServer> {
  const s = await startFakeTranscriptionServer(opts);
  servers.push(s);
  return s;
}

const options = (url: string, extra: Partial<TranscribeOptions> = {}): TranscribeOptions => ({
  url,
  api: 'openai',
  model: 'whisper-1',
  timeoutMs: 5_000,
  retry: { retries: 3, baseDelayMs: 5, maxDelayMs: 20 },
  ...extra,
});

const texts = (t: Transcript): string[] => t.words.map((w) => w.text.replace(/[.,]$/, ''));

function expectNonDecreasing(t: Transcript): void {
  for (let i = 1; i < t.words.length; i++) {
    expect(t.words[i]!.startMs).toBeGreaterThanOrEqual(t.words[i - 1]!.startMs);
    expect(t.words[i]!.endMs).toBeGreaterThanOrEqual(t.words[i]!.startMs);
  }
}

describe('response shapes', () => {
  it('OpenAI verbose_json: asks for word timestamps and keeps the server times', async () => {
    const s = await server({ uploadDir: dir });
    const t = await transcribe(AUDIO, options(s.url, { language: 'en' }));
    expect(t.timing).toBe('server');
    expect(t.responseFormat).toBe('verbose_json');
    expect(texts(t)).toEqual(SAID);
    const budget = BUDGET_WORDS[1]!;
    expect(t.words[1]).toEqual({ text: 'budget', startMs: Math.round(budget.start * 1000), endMs: Math.round(budget.end * 1000), speaker: null });
    expect(t.language).toBe('english');
    expect(t.durationMs).toBe(Math.round((BUDGET_WORDS.at(-1)!.end + 0.4) * 1000));
    const req = s.requests[0]!;
    expect(req.path).toBe('/v1/audio/transcriptions');
    expect(req.fields).toMatchObject({ model: ['whisper-1'], response_format: ['verbose_json'], 'timestamp_granularities[]': ['word', 'segment'], language: ['en'] });
    expect(req.file).toMatchObject({ filename: 'budget.mp3', contentType: 'audio/mpeg' });
    // The upload arrived byte for byte.
    expect(await readFile(req.file!.path!)).toEqual(await readFile(AUDIO));
  });

  it('gpt-4o-transcribe: falls back to json when verbose_json is refused, and estimates times', async () => {
    const s = await server();
    const t = await transcribe(AUDIO, options(s.url, { model: 'gpt-4o-transcribe', durationMs: 9000 }));
    expect(s.requests.map((r) => [r.status, r.fields?.response_format?.[0]])).toEqual([
      [400, 'verbose_json'],
      [200, 'json'],
    ]);
    expect(t.timing).toBe('estimated');
    expect(t.responseFormat).toBe('json');
    expect(texts(t)).toEqual(SAID);
    expect(t.words[0]!.startMs).toBe(0);
    expect(t.words.at(-1)!.endMs).toBe(9000);
    expectNonDecreasing(t);
  });

  it('diarized_json: speakers from segments, word times spread within each segment', async () => {
    const s = await server();
    const t = await transcribe(AUDIO, options(s.url, { model: 'gpt-4o-transcribe-diarize' }));
    expect(s.requests[0]!.fields).toMatchObject({ response_format: ['diarized_json'], chunking_strategy: ['auto'] });
    expect(t.timing).toBe('estimated');
    expect(texts(t)).toEqual(SAID);
    expect(t.words.map((w) => w.speaker)).toEqual(BUDGET_WORDS.map((w) => w.speaker));
    const maria = t.words.find((w) => w.text === 'Maria')!;
    expect(maria.startMs).toBe(Math.round(BUDGET_WORDS.find((w) => w.text === 'Maria')!.start * 1000));
    expect(t.words.at(-1)!.endMs).toBe(Math.round(BUDGET_WORDS.at(-1)!.end * 1000));
    expectNonDecreasing(t);
  });

  it('whisper.cpp /inference: merges sub-word tokens, drops control tokens, reads speakers', async () => {
    const s = await server({ whisperCppSpecialTokens: true, whisperCppSpeakers: true });
    const t = await transcribe(AUDIO, options(s.url, { api: 'whisper.cpp', model: undefined }));
    expect(s.requests[0]!.path).toBe('/inference');
    expect(s.requests[0]!.fields).toMatchObject({ response_format: ['verbose_json'] });
    expect(t.timing).toBe('server');
    expect(t.words.map((w) => w.text)).toEqual(BUDGET_WORDS.map((w) => w.text));
    expect(t.words.map((w) => w.speaker)).toEqual(BUDGET_WORDS.map((w) => (w.speaker === 'A' ? '0' : '1')));
    const revised = t.words.find((w) => w.text === 'revised')!;
    const said = BUDGET_WORDS.find((w) => w.text === 'revised')!;
    expect([revised.startMs, revised.endMs]).toEqual([Math.round(said.start * 1000), Math.round(said.end * 1000)]);
    expect(t.text).toBe(BUDGET_WORDS.map((w) => w.text).join(' '));
    expectNonDecreasing(t);
  });

  it('normalises a whisper.cpp body without token times and with [BLANK_AUDIO]', () => {
    const t = normalizeTranscription(
      {
        text: ' [BLANK_AUDIO]\n Hello there.',
        segments: [
          { id: 0, text: ' [BLANK_AUDIO]', start: 0, end: 2, words: [{ word: ' [', probability: 1 }, { word: 'BL' }, { word: 'ANK' }, { word: '_' }, { word: 'AUDIO' }, { word: ']' }] },
          { id: 1, text: ' Hello there.', start: 2, end: 3, words: [{ word: ' Hello' }, { word: ' there' }, { word: '.' }] },
        ],
      },
      { api: 'whisper.cpp', responseFormat: 'verbose_json' },
    );
    expect(t.words).toEqual([
      { text: 'Hello', startMs: 2000, endMs: 2462, speaker: null },
      { text: 'there.', startMs: 2462, endMs: 3000, speaker: null },
    ]);
    expect(t.timing).toBe('estimated');
  });

  it("a whisper.cpp body where only some segments have token times is 'mixed': those keep their times, the others are spread", () => {
    const t = normalizeTranscription(
      {
        text: ' Hello there. Good bye.',
        segments: [
          { id: 0, text: ' Hello there.', start: 0, end: 1, words: [{ word: ' Hello', start: 0.1, end: 0.4 }, { word: ' there.', start: 0.5, end: 0.9 }] },
          { id: 1, text: ' Good bye.', start: 2, end: 3, words: [{ word: ' Good' }, { word: ' bye.' }] },
        ],
      },
      { api: 'whisper.cpp', responseFormat: 'verbose_json' },
    );
    expect(t.words.slice(0, 2)).toEqual([
      { text: 'Hello', startMs: 100, endMs: 400, speaker: null },
      { text: 'there.', startMs: 500, endMs: 900, speaker: null },
    ]);
    expect(t.words.slice(2).map((w) => [w.text, w.startMs >= 2000, w.endMs <= 3000])).toEqual([['Good', true, true], ['bye.', true, true]]);
    expect(t.timing).toBe('mixed');
  });

  it('an empty transcript (silence) is not an error', () => {
    const t = normalizeTranscription({ text: '', segments: [], words: [] }, { api: 'openai', responseFormat: 'verbose_json' });
    expect(t).toEqual({ text: '', words: [], timing: 'estimated', responseFormat: 'verbose_json' });
  });
});

describe('faults', () => {
  it('500 then success', async () => {
    const s = await server();
    s.script(fault.status(500, 'CUDA out of memory'));
    const t = await transcribe(AUDIO, options(s.url));
    expect(texts(t)).toEqual(SAID);
    expect(s.requests.map((r) => r.status)).toEqual([500, 200]);
    // The file is re-sent whole on the retry.
    expect(s.requests.map((r) => r.file?.size)).toEqual([(await readFile(AUDIO)).length, (await readFile(AUDIO)).length]);
  });

  it('429 with Retry-After: waits before the retry', async () => {
    const s = await server();
    s.script(fault.rateLimit(1));
    await transcribe(AUDIO, options(s.url));
    expect(s.requests[1]!.receivedAt - s.requests[0]!.receivedAt).toBeGreaterThanOrEqual(1000);
  });

  it('400 is permanent: one request, the server message in the error', async () => {
    const s = await server();
    s.script(fault.status(400, 'Audio file might be corrupted or unsupported', { code: 'invalid_value', type: 'invalid_request_error' }));
    const err = await transcribe(AUDIO, options(s.url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentHttpError);
    expect((err as Error).message).toBe(
      `Transcription server at ${s.url}/v1/audio/transcriptions rejected the request (HTTP 400: Audio file might be corrupted or unsupported). Check transcription.model and transcription.url.`,
    );
    expect(s.requests).toHaveLength(1);
  });

  it('a whisper.cpp string error body is reported', async () => {
    const s = await server();
    s.script(fault.status(400, undefined, { body: { error: 'failed to read audio data' } }));
    const err = await transcribe(AUDIO, options(s.url, { api: 'whisper.cpp' })).catch((e: unknown) => e);
    expect((err as Error).message).toContain('(HTTP 400: failed to read audio data)');
  });

  it('malformed JSON is permanent with a clear message', async () => {
    const s = await server();
    s.script(fault.malformed('<html>proxy error</html>'));
    const err = await transcribe(AUDIO, options(s.url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentHttpError);
    expect((err as Error).message).toBe(
      `Transcription server at ${s.url}/v1/audio/transcriptions answered HTTP 200 with a body that is not JSON (starts "<html>proxy error</html>"). Check that transcription.url points at the right kind of server.`,
    );
    expect(s.requests).toHaveLength(1);
  });

  it('JSON without a transcript is permanent', async () => {
    const s = await server();
    s.script(fault.reply({ status: 'queued', id: 'abc' }));
    await expect(transcribe(AUDIO, options(s.url))).rejects.toThrow(/answered HTTP 200 but the body has no transcript \(no "text", "segments" or "words"\)/);
  });

  it('a server that never answers is bounded by timeoutMs', async () => {
    const s = await server();
    s.script(fault.hang());
    const err = await transcribe(AUDIO, options(s.url, { timeoutMs: 400 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransientHttpError);
    expect((err as TransientHttpError).kind).toBe('timeout');
    expect(s.requests).toHaveLength(1);
  });

  it('refused connection names the setting to check', async () => {
    await expect(transcribe(AUDIO, options('http://127.0.0.1:9', { retry: { retries: 1, baseDelayMs: 1 } }))).rejects.toThrow(
      'Transcription server at http://127.0.0.1:9/v1/audio/transcriptions refused the connection (ECONNREFUSED) (2 attempts). Is it running? Check transcription.url.',
    );
  });

  it('413 from a server that answers early and drops the connection is still a 413', async () => {
    const s = await server({ maxUploadBytes: 10_000 });
    const big = join(dir, 'too-big.wav');
    await writeFile(big, Buffer.alloc(8 * 1024 * 1024));
    const err = await transcribe(big, options(s.url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentHttpError);
    expect((err as PermanentHttpError).status).toBe(413);
    expect((err as Error).message).toMatch(/HTTP 413.*smaller pieces/);
  });

  it('a recording changed during the upload fails permanently, without retrying', { timeout: 30_000 }, async () => {
    const s = await server();
    const file = join(dir, 'changing.wav');
    await writeFile(file, '');
    await truncate(file, 200 * 1024 * 1024);
    const pending = transcribe(file, options(s.url)).catch((e: unknown) => e);
    setTimeout(() => void appendFile(file, 'more audio'), 30);
    const err = await pending;
    expect(err).toBeInstanceOf(PermanentHttpError);
    expect((err as PermanentHttpError).kind).toBe('file');
    expect((err as Error).message).toBe(
      'Could not read the recording while sending it to the transcription server (it changed while being sent). Was it moved, replaced or edited during the import?',
    );
    expect(s.requests).toHaveLength(1);
  });

  it('a missing recording fails before any request', async () => {
    const s = await server();
    const missing = join(dir, 'gone.wav');
    await expect(transcribe(missing, options(s.url))).rejects.toThrow(new RecordingUnreadableError(`Cannot read the recording ${missing} (ENOENT). Was it moved, deleted or made unreadable?`));
    expect(s.requests).toHaveLength(0);
  });
});

describe('memory', () => {
  it('streams a 300 MB recording: RSS grows far less than the file', { timeout: 60_000 }, async () => {
    const big = join(dir, 'big.wav');
    await writeFile(big, '');
    await truncate(big, 300 * 1024 * 1024); // sparse: no disk cost
    const s = await server(); // counts and discards the upload
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const timer = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      const t = await transcribe(big, options(s.url, { timeoutMs: 60_000 }));
      expect(texts(t)).toEqual(SAID);
    } finally {
      clearInterval(timer);
    }
    expect(s.requests[0]!.file!.size).toBe(300 * 1024 * 1024);
    const grownMb = (peak - before) / 1024 / 1024;
    console.info(`RSS before ${Math.round(before / 1048576)} MB, peak ${Math.round(peak / 1048576)} MB, grew ${grownMb.toFixed(0)} MB during a 300 MB upload`);
    expect(grownMb).toBeLessThan(100);
  });
});

describe('big answers: no recursion, no quadratic paths, bounded', () => {
  it('a whisper.cpp segment of 200,000 tokens (no spread of its words onto the call stack)', () => {
    const tokens = Array.from({ length: 200_000 }, (_, i) => ({ word: ` w${i}`, start: i * 0.01, end: i * 0.01 + 0.01 }));
    const t = normalizeTranscription({ text: 'x', segments: [{ start: 0, end: 2000, text: 'x', words: tokens }] }, { api: 'whisper.cpp', responseFormat: 'verbose_json' });
    expect(t.words).toHaveLength(200_000);
    expect(t.words[199_999]).toEqual({ text: 'w199999', startMs: 1_999_990, endMs: 2_000_000, speaker: null });
  });

  it('the same segment without token times is spread without recursion', () => {
    const t = normalizeTranscription({ segments: [{ start: 0, end: 2000, text: 'w '.repeat(200_000), words: [] }] }, { api: 'openai', responseFormat: 'verbose_json' });
    expect(t.words).toHaveLength(200_000);
    expect(t.timing).toBe('estimated');
  });

  it(`more than ${MAX_TRANSCRIPT_WORDS} words in one answer is a broken server`, () => {
    const words = Array.from({ length: MAX_TRANSCRIPT_WORDS + 1 }, (_, i) => ({ word: 'w', start: i * 0.3, end: i * 0.3 + 0.2 }));
    expect(() => normalizeTranscription({ text: 'w', words }, { api: 'openai', responseFormat: 'verbose_json' })).toThrow(
      'Transcription response the transcript has more than 500000 words, the most one request may carry (about 46 hours of speech).',
    );
    expect(() => normalizeTranscription({ text: 'w '.repeat(MAX_TRANSCRIPT_WORDS + 1) }, { api: 'openai', responseFormat: 'json' })).toThrow(/more than 500000 words/);
  });

  it('200,000 words with 100,000 diarized segments get their speakers in n log n', () => {
    const result = runBuilt(`
      const { normalizeTranscription } = await load('worker/clients/transcription.js');
      const words = Array.from({ length: 200_000 }, (_, i) => ({ word: 'w' + i, start: i * 0.5, end: i * 0.5 + 0.4 }));
      const segments = Array.from({ length: 100_000 }, (_, k) => ({ start: k, end: k + 0.99, text: '', speaker: 'S' + (k % 3) }));
      const t = normalizeTranscription({ text: 'x', words, segments }, { api: 'openai', responseFormat: 'verbose_json' });
      done([t.words.length, t.words[0].speaker, t.words[3].speaker, t.words[4].speaker, t.words[199_999].speaker]);`);
    // Word i's middle is 0.5 i + 0.2 s: inside segment floor(0.5 i + 0.2), speaker S(that % 3).
    expect(result).toEqual([200_000, 'S0', 'S1', 'S2', 'S0']);
  });
});

