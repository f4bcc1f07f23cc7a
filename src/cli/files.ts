import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from './args.ts';

/**
 * The files the paths of a command line name (read relative to `cwd`): a named file as given, a
 * directory's files recursively in name order, those `inDirectory` takes. Only regular files:
 * reading a pipe or a device (a FIFO, /dev/stdin, /dev/zero) waits for a writer or never ends, and
 * in a server (the admin channel runs the command there) the read would hold its event loop. A path
 * that is neither, or cannot be read, is a UsageError naming it.
 */
export function namedFiles(
  cwd: string,
  paths: readonly string[],
  inDirectory: (path: string) => boolean = () => true,
): string[] {
  const collect = (path: string, named: boolean): string[] => {
    const st = statSync(resolve(cwd, path));
    if (st.isDirectory())
      return readdirSync(resolve(cwd, path))
        .sort()
        .flatMap((name) => collect(join(path, name), false));
    if (!st.isFile()) {
      if (named) throw new UsageError(`${path} is not a file or a directory`);
      return [];
    }
    return named || inDirectory(path) ? [path] : [];
  };
  return paths.flatMap((path) => {
    try {
      return collect(path, true);
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot read ${path}`);
    }
  });
}
