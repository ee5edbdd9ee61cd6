import { InvalidInputError } from '../errors.js';

// A Zoom local recording is a folder `YYYY-MM-DD HH.MM.SS Topic[ MeetingID]` holding `audio*.m4a`,
// `video*.mp4` (newer clients: `zoom_0.mp4`), `playback.m3u`, the chat, and, when one was saved,
// a transcript. One folder is one meeting: its topic, its local start time, and the best source
// (a transcript, else the audio-only file, else the video).

export interface ZoomRecording {
  title: string;
  /** ISO 8601 UTC, from the folder name's wall-clock time in `timeZone`. */
  startedAt: string;
  /** The meeting ID some Zoom versions append to the folder name. */
  meetingId: string | null;
  /** File names as given; null when the folder has none. */
  transcript: string | null;
  audio: string | null;
  /** What to import: the transcript when there is one, else the audio. */
  use: 'transcript' | 'audio';
}

export interface ZoomFolderOptions {
  /** IANA zone the recording machine was in (default: this machine's). */
  timeZone?: string;
}

const FOLDER = /^(\d{4})-(\d{2})-(\d{2}) (\d{2})\.(\d{2})\.(\d{2}) (.+)$/u;
const MEETING_ID = /^(.*?)\s+(\d{9,11})$/u;
const INCOMPLETE = /\.(?:part|crdownload|tmp)$/i;

const baseName = (f: string): string => f.slice(Math.max(f.lastIndexOf('/'), f.lastIndexOf('\\')) + 1);

/** Null when the name is not a Zoom recording folder's, or it holds nothing to import. */
export function readZoomFolder(folderName: string, files: readonly string[], opts: ZoomFolderOptions = {}): ZoomRecording | null {
  const m = FOLDER.exec(baseName(folderName.replace(/[\\/]+$/, '')).normalize('NFC'));
  if (m === null) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return null;
  if (new Date(Date.UTC(y, mo - 1, d)).getUTCDate() !== d) return null; // 2026-02-30
  let title = m[7]!.replace(/\s+/gu, ' ').trim();
  let meetingId: string | null = null;
  const id = MEETING_ID.exec(title);
  if (id !== null && id[1]!.trim() !== '') {
    title = id[1]!.trim();
    meetingId = id[2]!;
  }

  const usable = files.filter((f) => {
    const b = baseName(f);
    return b !== '' && !b.startsWith('.') && !INCOMPLETE.test(b);
  });
  const pick = (test: (b: string) => boolean): string | null => usable.filter((f) => test(baseName(f).toLowerCase())).sort()[0] ?? null;
  const transcript =
    pick((b) => /\.(?:vtt|srt)$/.test(b) && b.includes('transcript')) ?? pick((b) => b.endsWith('.vtt') && !b.includes('chat')) ?? pick((b) => b.endsWith('.srt'));
  const audio = pick((b) => b.startsWith('audio') && b.endsWith('.m4a')) ?? pick((b) => /^(?:video.*|zoom_\d+)\.mp4$/.test(b));
  if (transcript === null && audio === null) return null;

  return {
    title,
    startedAt: new Date(wallClockToUtc([y, mo, d, h, mi, s], opts.timeZone)).toISOString(),
    meetingId,
    transcript,
    audio,
    use: transcript !== null ? 'transcript' : 'audio',
  };
}

/** The instant at which clocks in `timeZone` showed this wall-clock time (the earlier one when it occurs twice). */
export function wallClockToUtc(parts: readonly [number, number, number, number, number, number], timeZone?: string): number {
  const [y, mo, d, h, mi, s] = parts;
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  } catch {
    throw new InvalidInputError(`Unknown time zone "${String(timeZone).slice(0, 60)}": use an IANA name such as Europe/Paris.`);
  }
  const offset = (t: number): number => {
    const p = Object.fromEntries(fmt.formatToParts(new Date(t)).map((x) => [x.type, Number(x.value)]));
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(t / 1000) * 1000;
  };
  // The offsets a day before and after cover both sides of a daylight-saving change: a time that
  // occurs twice takes the earlier instant; one skipped by the change is read with the earlier offset.
  const candidates = [asUtc - offset(asUtc - 86_400_000), asUtc - offset(asUtc + 86_400_000)];
  const valid = candidates.filter((c) => c + offset(c) === asUtc);
  return valid.length > 0 ? Math.min(...valid) : candidates[0]!;
}
