// The `namazu` executable the benches start, as `npm start` runs it: bin/namazu.js starts the bundle
// in dist/ when it is current and the TypeScript sources through tsx otherwise, whose loader then
// compiles each module on its first use — inside the figures of a freshly started server. So the
// bundle is built here first (scripts/build.js, under a second), by whichever bench imports this.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
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

/** A `namazu serve` the bench started, once each of its processes listens. */
export interface ServedNamazu {
  child: ChildProcess;
  /** The port each process listens on (one per worker). */
  ports: number[];
  /** Stops it (SIGTERM) and waits for its exit. */
  stop(): Promise<void>;
}

/**
 * Starts `namazu serve` on loopback with `settings` (NAMAZU_*) and waits for its `workers` to listen;
 * `nice`, when given, is its scheduling priority (as `nice -n`: higher yields the CPU to the others).
 */
export async function serveNamazu(
  settings: Record<string, string>,
  workers = 1,
  nice?: number,
): Promise<ServedNamazu> {
  const args = [BIN, 'serve', '--port', '0', '--host', '127.0.0.1'];
  if (workers > 1) args.push('--workers', String(workers));
  const child = spawn(process.execPath, args, {
    env: cleanEnv({ NAMAZU_DEMO: '0', NAMAZU_LOG_LEVEL: 'info', ...settings }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Before its workers are forked, which inherit it.
  if (nice !== undefined) setPriority(child.pid!, nice);
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  const ports = () => [...log.matchAll(/"port":(\d+).*"namazu listening"/g)].map((m) => Number(m[1]));
  while (ports().length < workers) {
    if (child.exitCode !== null) throw new Error(`namazu serve exited (${child.exitCode}):\n${log}`);
    await sleep(50);
  }
  return {
    child,
    ports: ports(),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
