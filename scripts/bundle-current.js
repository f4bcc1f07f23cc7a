// Whether a bundle that scripts/build.js wrote is at least as new as everything it is built from: every
// file and folder under src/ (a folder's time moves when a file in it is added, removed or renamed)
// and scripts/build.js itself. bin/namazu.js asks it to choose between the bundle and the sources;
// `npm start` (scripts/build.js --if-changed) to build only when something changed.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The newest modification time of a folder, and of everything under it, in milliseconds. */
function newestMtime(dir) {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** True when `outdir` (absolute, or relative to the checkout) holds a complete bundle of the current sources. */
export function bundleIsCurrent(outdir = 'dist') {
  try {
    const built = statSync(resolve(root, outdir, 'namazu.js')).mtimeMs;
    return (
      built >= newestMtime(join(root, 'src')) && built >= statSync(join(root, 'scripts/build.js')).mtimeMs
    );
  } catch {
    return false;
  }
}
