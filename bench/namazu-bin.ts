// The `namazu` executable the benches start, as `npm start` runs it: bin/namazu.js starts the bundle
// in dist/ when it is current and the TypeScript sources through tsx otherwise, whose loader then
// compiles each module on its first use — inside the figures of a freshly started server. So the
// bundle is built here first (scripts/build.js, under a second), by whichever bench imports this.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const built = spawnSync(process.execPath, ['scripts/build.js'], { cwd: ROOT, stdio: 'inherit' });
if (built.status !== 0) throw new Error(`scripts/build.js failed (${built.status ?? built.signal})`);

export const BIN = fileURLToPath(new URL('../bin/namazu.js', import.meta.url));

/** This process's environment without its NAMAZU_* settings, plus `settings`: a started server's. */
export function cleanEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('NAMAZU_')));
  return { ...env, ...settings };
}
