import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { readZoomFolder, wallClockToUtc } from '../../src/ingest/zoom-folder.js';

const PARIS = { timeZone: 'Europe/Paris' };

describe('readZoomFolder', () => {
  it('a folder with a transcript: the topic, the start time in the recording zone, the transcript to import and the audio beside it', () => {
    const files = ['audio1234567890.m4a', 'video1234567890.mp4', 'playback.m3u', 'chat.txt', 'GMT20260304-143012_Recording.transcript.vtt', 'GMT20260304-143012_Recording.cc.vtt'];
    expect(readZoomFolder('2026-03-04 15.30.12 Weekly sync', files, PARIS)).toEqual({
      title: 'Weekly sync',
      startedAt: '2026-03-04T14:30:12.000Z',
      meetingId: null,
      transcript: 'GMT20260304-143012_Recording.transcript.vtt',
      audio: 'audio1234567890.m4a',
      use: 'transcript',
    });
  });

  it('no transcript: the audio-only file; no audio-only file: the video (video*.mp4 or zoom_0.mp4)', () => {
    expect(readZoomFolder('2026-03-04 15.30.12 Weekly sync', ['video1.mp4', 'audio1.m4a', 'chat.txt'], PARIS)).toMatchObject({ transcript: null, audio: 'audio1.m4a', use: 'audio' });
    expect(readZoomFolder('2026-03-04 15.30.12 Weekly sync', ['video1.mp4', 'playback.m3u'], PARIS)).toMatchObject({ transcript: null, audio: 'video1.mp4', use: 'audio' });
    expect(readZoomFolder('2026-03-04 15.30.12 Weekly sync', ['zoom_0.mp4'], PARIS)).toMatchObject({ audio: 'zoom_0.mp4', use: 'audio' });
  });

  it('any .vtt, else an .srt, is a transcript; chat files and closed-caption text are not', () => {
    expect(readZoomFolder('2026-03-04 15.30.12 Sync', ['meeting_saved_chat.txt', 'captions.srt', 'audio1.m4a'], PARIS)).toMatchObject({ transcript: 'captions.srt', use: 'transcript' });
    expect(readZoomFolder('2026-03-04 15.30.12 Sync', ['b.srt', 'a.vtt'], PARIS)).toMatchObject({ transcript: 'a.vtt', audio: null });
    expect(readZoomFolder('2026-03-04 15.30.12 Sync', ['chat.vtt', 'audio1.m4a'], PARIS)).toMatchObject({ transcript: null, use: 'audio' });
  });

  it('ignores hidden and incomplete files (.part, .crdownload, .tmp)', () => {
    expect(readZoomFolder('2026-03-04 15.30.12 Sync', ['.transcript.vtt', 'audio1.m4a.part', 'audio2.m4a', 'x.vtt.crdownload', 'y.srt.tmp'], PARIS)).toMatchObject({ transcript: null, audio: 'audio2.m4a' });
    expect(readZoomFolder('2026-03-04 15.30.12 Sync', ['audio1.m4a.part', '.DS_Store'], PARIS)).toBeNull();
  });

  it('takes paths too (folder with a trailing slash, files with their folder), and returns the files as given', () => {
    const r = readZoomFolder('/home/zoe/Documents/Zoom/2026-03-04 15.30.12 Weekly sync/', ['/home/zoe/Documents/Zoom/2026-03-04 15.30.12 Weekly sync/audio1.M4A'], PARIS);
    expect(r).toMatchObject({ title: 'Weekly sync', audio: '/home/zoe/Documents/Zoom/2026-03-04 15.30.12 Weekly sync/audio1.M4A' });
  });

  it('a meeting ID after the topic is split off; non-ASCII topics are kept', () => {
    expect(readZoomFolder("2026-03-04 15.30.12 Zoë's Zoom Meeting 4991434953", ['audio1.m4a'], PARIS)).toMatchObject({ title: "Zoë's Zoom Meeting", meetingId: '4991434953' });
    expect(readZoomFolder('2026-03-04 15.30.12 李娜 周会', ['audio1.m4a'], PARIS)).toMatchObject({ title: '李娜 周会', meetingId: null });
    expect(readZoomFolder('2026-03-04 15.30.12 Planning 2026', ['audio1.m4a'], PARIS)).toMatchObject({ title: 'Planning 2026', meetingId: null });
  });

  it.each([
    ['no time', '2026-03-04 Weekly sync'],
    ['colons instead of dots', '2026-03-04 15:30:12 Weekly sync'],
    ['no topic', '2026-03-04 15.30.12'],
    ['month 13', '2026-13-04 15.30.12 Sync'],
    ['30 February', '2026-02-30 15.30.12 Sync'],
    ['hour 24', '2026-03-04 24.00.00 Sync'],
    ['any other folder', 'Holiday photos'],
  ])('not a Zoom recording folder: %s', (_why, name) => {
    expect(readZoomFolder(name, ['audio1.m4a', 'x.vtt'], PARIS)).toBeNull();
  });
});

describe('wallClockToUtc', () => {
  it.each([
    ['UTC', [2026, 3, 4, 15, 30, 12], '2026-03-04T15:30:12.000Z'],
    ['Europe/Paris', [2026, 7, 1, 9, 0, 0], '2026-07-01T07:00:00.000Z'],
    ['America/New_York', [2026, 1, 15, 9, 0, 0], '2026-01-15T14:00:00.000Z'],
    ['Asia/Shanghai', [2026, 3, 4, 15, 30, 12], '2026-03-04T07:30:12.000Z'],
    ['Asia/Kolkata', [2026, 3, 4, 15, 30, 0], '2026-03-04T10:00:00.000Z'],
    // 02:30 happens twice in Paris on 25 October 2026: the earlier (summer time) instant.
    ['Europe/Paris', [2026, 10, 25, 2, 30, 0], '2026-10-25T00:30:00.000Z'],
    // 02:30 never happens in Paris on 29 March 2026: read with the winter offset (03:30 summer time).
    ['Europe/Paris', [2026, 3, 29, 2, 30, 0], '2026-03-29T01:30:00.000Z'],
  ] as const)('%s %j -> %s', (zone, parts, iso) => {
    expect(new Date(wallClockToUtc(parts, zone)).toISOString()).toBe(iso);
  });

  it('an unknown zone is refused with a message saying what to give', () => {
    expect(() => wallClockToUtc([2026, 3, 4, 15, 30, 12], 'Mars/Olympus')).toThrow(InvalidInputError);
    expect(() => wallClockToUtc([2026, 3, 4, 15, 30, 12], 'Mars/Olympus')).toThrow('Unknown time zone "Mars/Olympus": use an IANA name such as Europe/Paris.');
  });

  it("without a zone, this machine's local time (as Date reads it)", () => {
    expect(wallClockToUtc([2026, 3, 4, 15, 30, 12])).toBe(new Date(2026, 2, 4, 15, 30, 12).getTime());
  });
});
