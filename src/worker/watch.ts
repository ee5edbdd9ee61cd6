import { watch, type FSWatcher } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256File } from '../db/model/imports.js';
import type { Store } from '../db/store.js';
import { loadConfig } from '../config.js';
import { readZoomFolder } from '../ingest/zoom-folder.js';
import { DuplicateImportError, isSyntheoError } from '../errors.js';
import type { Logger } from '../log.js';

// Watched folders (`imports.watch`): each recording or transcript that appears there is imported once it
// is complete (size and mtime unchanged for `stableMs`), exactly once: a job for the same path, size and
// mtime, or for the same content (sha256, failed jobs included), means it was seen, across restarts and
// renames. A Zoom local-recording folder (`YYYY-MM-DD HH.MM.SS Topic/`) is one meeting. fs.watch wakes
// the scan early; a periodic rescan catches what it misses and a folder removed and created again.

export interface WatchOptions {
  store: Store;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** A file must keep its size and mtime this long before it is imported. */
  stableMs: number;
  /** Full rescan period. */
  rescanMs: number;
}

export interface FolderWatcher {
  stop(): Promise<void>;
}

/** Entries never imported: hidden files and downloads or copies still in progress. */
const INCOMPLETE = /\.(?:part|crdownload|tmp|download|partial)$/i;
export const ignoredName = (name: string): boolean => name.startsWith('.') || INCOMPLETE.test(name);
/** Bounds on what one scan looks at. */
const MAX_ENTRIES_PER_DIR = 10_000;
const MAX_WATCHED_DIRS = 64;

interface Candidate {
  size: number;
  mtimeMs: number;
  /** When this size and mtime were first seen. */
  since: number;
}

interface Source {
  /** The file to import. */
  path: string;
  title?: string;
  startedAt?: string;
  /** A Zoom folder: skipped once any of its files was imported. */
  folder?: string;
}

export function startFolderWatcher(opts: WatchOptions): FolderWatcher {
  const { store, logger } = opts;
  const log = logger.child({ stage: 'watch' });
  const candidates = new Map<string, Candidate>();
  /** path -> "size:mtime" already dealt with in this process (imported, skipped or refused). */
  const settled = new Map<string, string>();
  const watchers = new Map<string, FSWatcher>();
  let stopped = false;
  let scanning: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let lastDirs = '';

  const dirsNow = async (): Promise<string[]> => {
    try {
      return loadConfig(await store.settings.read(), opts.env).imports.watch.slice(0, MAX_WATCHED_DIRS);
    } catch (error) {
      log.warn({ err: error }, 'watched folders: the configuration is invalid');
      return [];
    }
  };

  const watchDir = (dir: string): void => {
    if (watchers.has(dir)) return;
    try {
      const w = watch(dir, { persistent: false }, () => schedule(Math.min(250, opts.stableMs)));
      // The folder was removed (or became unreadable): forget the watcher; the rescan makes a new one.
      w.on('error', () => {
        w.close();
        watchers.delete(dir);
      });
      watchers.set(dir, w);
    } catch {
      // Missing for now: the periodic rescan tries again.
    }
  };

  const sourcesIn = async (dir: string): Promise<Source[]> => {
    let entries;
    try {
      entries = (await readdir(dir, { withFileTypes: true })).slice(0, MAX_ENTRIES_PER_DIR);
    } catch {
      const w = watchers.get(dir);
      w?.close();
      watchers.delete(dir);
      return [];
    }
    watchDir(dir);
    const out: Source[] = [];
    for (const e of entries) {
      if (ignoredName(e.name)) continue;
      const path = join(dir, e.name);
      if (e.isFile()) out.push({ path });
      else if (e.isDirectory()) {
        let files: string[];
        try {
          files = (await readdir(path)).slice(0, MAX_ENTRIES_PER_DIR);
        } catch {
          continue;
        }
        const zoom = readZoomFolder(e.name, files);
        if (zoom === null) continue;
        const file = zoom.use === 'transcript' ? zoom.transcript! : zoom.audio!;
        out.push({ path: join(path, file), title: zoom.title, startedAt: zoom.startedAt, folder: path });
      }
    }
    return out;
  };

  const consider = async (src: Source, now: number): Promise<void> => {
    let info;
    try {
      info = await stat(src.path);
    } catch {
      candidates.delete(src.path);
      return;
    }
    if (!info.isFile() || info.size === 0) return;
    const key = `${info.size}:${Math.trunc(info.mtimeMs)}`;
    if (settled.get(src.path) === key) return;
    const seen = candidates.get(src.path);
    if (seen === undefined || seen.size !== info.size || seen.mtimeMs !== Math.trunc(info.mtimeMs)) {
      candidates.set(src.path, { size: info.size, mtimeMs: Math.trunc(info.mtimeMs), since: now });
      return;
    }
    if (now - seen.since < opts.stableMs) return;
    candidates.delete(src.path);
    settled.set(src.path, key);
    await importOnce(src, info.size, Math.trunc(info.mtimeMs));
  };

  const importOnce = async (src: Source, size: number, mtimeMs: number): Promise<void> => {
    const flog = log.child({ file: src.path });
    try {
      const real = await realpath(src.path);
      if (await store.imports.hasFile(real, size, mtimeMs)) return;
      if (src.folder !== undefined && (await store.imports.hasUnder(await realpath(src.folder)))) return;
      const sha256 = await sha256File(real);
      const earlier = await store.imports.findByContent(sha256, { includeFailed: true });
      if (earlier !== null) {
        flog.info({ jobId: earlier.jobId, meetingId: earlier.meetingId }, 'watched file skipped: the same content was imported before');
        return;
      }
      const job = await store.imports.enqueue({ filePath: real, title: src.title, startedAt: src.startedAt, contentSha256: sha256, duplicates: 'refuse' });
      flog.info({ jobId: job.job_id, meetingId: job.meeting_id, format: job.file_format }, 'watched file queued');
    } catch (error) {
      if (error instanceof DuplicateImportError) flog.info({ jobId: error.existing.jobId }, 'watched file skipped: the same content was imported before');
      else if (isSyntheoError(error)) flog.warn({ reason: error.message }, 'watched file not imported');
      else flog.warn({ err: error }, 'watched file could not be read');
    }
  };

  const scan = async (): Promise<void> => {
    const dirs = await dirsNow();
    const joined = dirs.join(',');
    if (joined !== lastDirs) {
      log.info({ dirs }, dirs.length > 0 ? 'watching folders' : 'no watched folders');
      lastDirs = joined;
      for (const [dir, w] of watchers) {
        if (dirs.includes(dir)) continue;
        w.close();
        watchers.delete(dir);
      }
    }
    const now = Date.now();
    const present = new Set<string>();
    for (const dir of dirs) {
      for (const src of await sourcesIn(dir)) {
        if (stopped) return;
        present.add(src.path);
        await consider(src, now);
      }
    }
    for (const path of candidates.keys()) if (!present.has(path)) candidates.delete(path);
    // A file that comes back under the same name is looked at again (its content decides).
    for (const path of settled.keys()) if (!present.has(path)) settled.delete(path);
    // Something is waiting to become stable: look again when it may be.
    if (candidates.size > 0) schedule(opts.stableMs);
  };

  const run = (): void => {
    if (stopped) return;
    if (scanning !== null) {
      again = true;
      return;
    }
    scanning = scan()
      .catch((error: unknown) => log.warn({ err: error }, 'watched folders: scan failed'))
      .finally(() => {
        scanning = null;
        if (again && !stopped) {
          again = false;
          run();
        }
      });
  };

  const schedule = (ms: number): void => {
    if (stopped) return;
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      run();
    }, ms);
  };

  const rescan = setInterval(run, opts.rescanMs);
  run();

  return {
    async stop() {
      stopped = true;
      clearInterval(rescan);
      if (timer !== null) clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
      await scanning;
    },
  };
}
