import { closeSync, openSync, readFileSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CodedError } from '../errors.ts';

export class DataDirLockedError extends CodedError {
  constructor(message: string) {
    super('DATA_DIR_LOCKED', { message });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the live process (not this one) that holds the data directory's lock, or null. */
export function dataDirHolder(dir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, 'namazu.lock'), 'utf8').trim());
  } catch {
    return null;
  }
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid) ? pid : null;
}

/**
 * Takes the exclusive lock on an embedded data directory: a file created with O_EXCL holding our
 * pid. A lock left by a process that no longer runs is taken over. Returns the release function.
 */
export function lockDataDir(dir: string): () => void {
  const path = join(dir, 'namazu.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const pid = dataDirHolder(dir);
      if (pid !== null) throw new DataDirLockedError(`data directory ${dir} is in use by process ${pid}`);
      rmSync(path, { force: true });
    }
  }
  throw new DataDirLockedError(`data directory ${dir} could not be locked`);
}
