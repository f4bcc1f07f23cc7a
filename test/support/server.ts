import { createAccount, type Account } from '../../src/accounts/accounts.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { addContract } from '../../src/accounts/contracts.ts';
import type { Bus } from '../../src/bus/types.ts';
import type { Clock } from '../../src/clock.ts';
import { defaults, type Config } from '../../src/config.ts';
import type { AppPlugin } from '../../src/http/surface.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { serveByInjection } from './fetch.ts';

export interface TestServer extends RunningServer {
  /**
   * http://127.0.0.1:<port>. Without a port (`listen: false`) the origin is answered by
   * `testFetch` through `inject()`; nothing listens there.
   */
  url: string;
  database: TestDatabase;
  /** Creates an account; `contracts` are plan classifications to contract. */
  createAccount(options?: { admin?: boolean; contracts?: string[]; email?: string }): Promise<{
    account: Account;
    password: string;
  }>;
  createApiKey(accountId: number, scopes: string[]): Promise<string>;
}

let counter = 0;

/**
 * Boots the real service against a fresh database (PGlite, or PostgreSQL when
 * NAMAZU_TEST_DATABASE_URL is set), on an ephemeral loopback port, or with `listen: false` on none:
 * for tests that only make HTTP requests (through `testFetch`) and need no socket or client
 * library that opens its own connections. Close it at the end of the test.
 */
export async function startTestServer(
  options: {
    clock?: Clock;
    config?: Partial<Config>;
    database?: TestDatabase;
    listen?: boolean;
    bus?: Bus;
    /** Plugins registered after the surfaces (startServer's `plugins`). */
    plugins?: readonly AppPlugin[];
    /** Where the server logs (a test that reads its lines); else silent, or NAMAZU_TEST_LOG_LEVEL. */
    logger?: Logger;
  } = {},
): Promise<TestServer> {
  const database = options.database ?? (await createTestDatabase());
  const config: Config = {
    ...defaults(),
    port: 0,
    host: '127.0.0.1',
    dataDir: database.dataDir,
    databaseUrl: database.databaseUrl,
    demo: false,
    logLevel: 'silent',
    ...options.config,
  };
  const listen = options.listen ?? true;
  const server = await startServer(config, {
    clock: options.clock,
    bus: options.bus,
    plugins: options.plugins,
    logger: options.logger ?? createLogger(process.env.NAMAZU_TEST_LOG_LEVEL ?? 'silent'),
    listen,
  });
  const { db, pepper } = server.ctx;
  const { origin: url, forget } = listen
    ? { origin: `http://127.0.0.1:${server.port}`, forget: () => {} }
    : serveByInjection(server.app);
  return {
    ...server,
    url,
    database,
    async close() {
      forget();
      await server.close();
      if (!options.database) await database.drop();
    },
    async createAccount(o = {}) {
      const password = `pw-${counter}-${Math.random().toString(36).slice(2)}`;
      const account = await createAccount(db, {
        email: o.email ?? `user${++counter}-${Date.now()}@example.test`,
        password,
        isAdmin: o.admin ?? false,
      });
      for (const c of o.contracts ?? []) await addContract(db, account.id, c);
      return { account, password };
    },
    async createApiKey(accountId, scopes) {
      return (await createApiKey(db, pepper, accountId, scopes)).key;
    },
  };
}

/**
 * A step of the stop that holds it until released, in a plugin's `preClose` hook (pass `plugin`
 * to startTestServer): registered after the surfaces, it runs after their own `preClose` hooks,
 * while the app is closing and its HTTP server still open.
 */
export function heldStop(): { plugin: AppPlugin; holding(): boolean; release(): void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let holding = false;
  return {
    plugin: async (app) => {
      app.addHook('preClose', async () => {
        holding = true;
        await held;
      });
    },
    holding: () => holding,
    release,
  };
}

/** Routes as Fastify lists them (`printRoutes`): full path and methods. */
export function registeredRoutes(server: TestServer): { path: string; methods: string[] }[] {
  const routes: { path: string; methods: string[] }[] = [];
  const stack: string[] = [];
  for (const line of server.app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*) \(([^)]*)\)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2]!;
    stack[depth] = path;
    routes.push({ path, methods: m[3]!.split(', ') });
  }
  return routes;
}
