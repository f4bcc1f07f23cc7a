// The server of a bench that runs it in its own process (bench/webhooks.ts, bench/webhook-outage.ts):
// on a fresh embedded database, or with NAMAZU_BENCH_DATABASE_URL on a PostgreSQL database created
// for the run with the PostgreSQL bus (another node started by the bench hears its commits);
// `close` stops it and drops what the run made (subscriptions left in a database would post to
// receivers that are gone).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaults, type Config } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import { createBenchDatabase } from './bench-database.ts';

export interface BenchServer {
  server: RunningServer;
  /** The run's PostgreSQL database, or null on the embedded engine. */
  databaseUrl: string | null;
  close(): Promise<void>;
}

export async function startBenchServer(
  name: string,
  secret: string,
  config: Partial<Config>,
  listen: boolean,
): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const adminUrl = process.env.NAMAZU_BENCH_DATABASE_URL || null;
  const scratch = adminUrl ? await createBenchDatabase(adminUrl, name.replace(/-/g, '_'), secret) : null;
  const server = await startServer(
    {
      ...defaults(),
      port: 0,
      host: '127.0.0.1',
      dataDir,
      databaseUrl: scratch?.databaseUrl ?? null,
      ...(scratch ? { bus: 'postgres' as const } : {}),
      secret,
      demo: false,
      logLevel: 'silent',
      ...config,
    },
    { logger: createLogger('silent'), listen },
  );
  return {
    server,
    databaseUrl: scratch?.databaseUrl ?? null,
    async close() {
      await server.close();
      await scratch?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
