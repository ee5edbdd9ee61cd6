import { closeSync, constants, existsSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { SyntheoError } from '../errors.js';

/**
 * Writes through a temporary file in the same folder and renames it into place, so a reader never sees
 * half a file and a crash leaves the old one. Mode 0600: exports hold private meetings.
 * Without `force`, an existing target is an `exists` error (exit 4), checked again at the rename.
 */
export function writeFileAtomic(target: string, content: string | Buffer, options: { force: boolean }): { path: string; bytes: number } {
  const path = resolve(target);
  const refuse = () =>
    new SyntheoError('exists', `${path} already exists. Pass --force to overwrite it, or choose another --output.`);
  if (!options.force && existsSync(path)) throw refuse();
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let fd: number;
  try {
    fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    throw cannotWrite(path, error);
  }
  const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  try {
    let at = 0;
    while (at < data.length) at += writeSync(fd, data, at);
    fsyncSync(fd);
    closeSync(fd);
    // A file that appeared meanwhile is still not overwritten without --force.
    if (!options.force && existsSync(path)) throw refuse();
    renameSync(temp, path);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(temp, { force: true });
    throw error instanceof SyntheoError ? error : cannotWrite(path, error);
  }
  return { path, bytes: data.length };
}

function cannotWrite(path: string, error: unknown): SyntheoError {
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
  const why =
    code === 'ENOENT' ? 'its folder does not exist' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'ENOSPC' ? 'the disk is full' : code === 'EISDIR' ? 'it is a directory' : code;
  return new SyntheoError('invalid', `Cannot write ${path}: ${why}.`, { cause: error });
}
