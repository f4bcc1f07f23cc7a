// Real `namazu serve` processes for multi-process tests (they need PostgreSQL).
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../../bin/namazu.js', import.meta.url));

export interface ServeProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts `namazu serve` on an ephemeral loopback port; resolves once it listens. */
export function serve(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--host', '127.0.0.1'], {
    env: {
      ...process.env,
      NAMAZU_TEST_DATABASE_URL: '',
      NAMAZU_DEMO: 'false',
      NAMAZU_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start')), 60_000);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; port?: number };
        if (entry.msg === 'namazu listening') {
          clearTimeout(timer);
          resolve({ url: `http://127.0.0.1:${entry.port}`, child, stop });
        }
      } catch {
        // not a log line
      }
    });
  });
}
