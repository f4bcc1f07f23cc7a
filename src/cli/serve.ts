import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { findAccountByEmail, firstAdministratorCommand, hasAdministrator } from '../accounts/accounts.ts';
import type { AppContext } from '../context.ts';
import { loadConfig } from '../config.ts';
import { openDb } from '../db/open.ts';
import {
  commandTarget,
  createDemoOnce,
  DEMO_EMAIL,
  demoBanner,
  demoCredentialsPath,
  demoNotice,
  writeDemoCredentials,
} from '../demo.ts';
import { startSources } from '../sources/start.ts';
import { serveAdminChannel } from './admin-channel.ts';
import { configFlags, parseFlags } from './args.ts';
import { isClusterPrimary, isFirstWorker, runPrimary } from './cluster.ts';
import { withDatabase } from './database.ts';

/**
 * How long a stop may take (docs/operations.md, "Stopping"): past it, the process exits with status 1
 * whatever is still under way. Well under the systemd unit's TimeoutStopSec=30, which kills.
 */
export const STOP_GRACE_MS = 20_000;

/**
 * The telegrams whose schema checks a server compiles as it starts: early warnings, tsunami warnings
 * and earthquake reports, those awaited in the minute after a strong earthquake. The first of them
 * after a start would otherwise wait for its check to be compiled (0.06–0.1 s each); other types'
 * checks are compiled at the first of each.
 */
const URGENT_TYPES = ['VXSE45', 'VTSE41', 'VXSE53'];

const serveFlags = {
  port: { type: 'string' },
  host: { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  bus: { type: 'string' },
  workers: { type: 'string' },
} as const;

/** namazu serve [--port N] [--data-dir D] [--host H] [--database-url U] [--bus B] [--workers N] */
export async function serveCommand(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, serveFlags);
  const config = loadConfig(process.env, configFlags(values, Object.keys(serveFlags)));
  if (isClusterPrimary(config.workers))
    return runPrimary(config.workers, (m) => process.stderr.write(`namazu: ${m}\n`));
  // Signals during startup are honoured once the server is up, so it always closes cleanly.
  let stopRequested: string | null = null;
  let stop = (signal: string) => {
    stopRequested ??= signal;
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  const startedAt = performance.now();
  // The embedded database starts in a thread of its own (PGlite's start, about a second) while this
  // one loads the server's modules, imported here rather than above for that reason.
  const db =
    config.databaseUrl === null
      ? openDb({ databaseUrl: null, dataDir: config.dataDir, poolSize: 1 })
      : undefined;
  db?.catch(() => {}); // a failure to open is thrown by startServer, which awaits it
  const [{ startServer }, { compileSchemaChecks }] = await Promise.all([
    import('../server.ts'),
    import('../conversion/convert.ts'),
  ]);
  const server = await startServer(config, { db, plugins: [besideTheServer] });
  const { ctx } = server;
  // In a thread, once the server listens: compiled on this thread, before listening, they made a
  // start 0.3 s longer (bench/REPORT.md).
  compileSchemaChecks(URGENT_TYPES).catch((err: unknown) =>
    ctx.log.warn({ err }, 'the schema checks of urgent telegrams were not compiled ahead'),
  );
  ctx.log.info(
    {
      port: server.port,
      engine: ctx.db.engine,
      bus: config.bus,
      startupMs: Math.round(performance.now() - startedAt),
    },
    'namazu listening',
  );
  let demoShown = false;
  // What the commands printed for the operator add to reach this server's database.
  const target = commandTarget(config.dataDir, config.databaseUrl === null);
  if (config.demo && isFirstWorker()) {
    const demo = await createDemoOnce(ctx.db, ctx.pepper);
    demoShown = demo !== null;
    const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
    if (demo) {
      const origin = config.baseUrl ?? `http://${shownHost}:${server.port}`;
      const banner = demoBanner(demo, origin, target);
      if (process.stdout.isTTY) process.stdout.write(banner + '\n');
      else {
        // Not a terminal: a log collector may be reading. Secrets go to an owner-only file.
        const path = demoCredentialsPath(config.dataDir, config.databaseUrl === null);
        writeDemoCredentials(path, banner);
        ctx.log.info({ path }, 'demo credentials written');
        process.stdout.write(demoNotice(origin, path, target) + '\n');
      }
    }
  }

  if (isFirstWorker()) await tellOperator(ctx, demoShown, target);

  let stopping: string | null = null;
  stop = (signal: string) => {
    // The same signal again is an operator who will not wait: the process exits now. (A worker of
    // --workers hears Ctrl-C from the terminal and SIGTERM from its primary: two kinds, one stop.)
    if (stopping === signal) {
      ctx.log.warn({ signal }, 'second signal: exiting without finishing the stop');
      process.exit(1);
    }
    if (stopping !== null) return;
    stopping = signal;
    ctx.log.info({ signal }, 'shutting down');
    setTimeout(() => {
      ctx.log.error({ graceMs: STOP_GRACE_MS }, 'the stop did not finish within its grace period: exiting');
      process.exit(1);
    }, STOP_GRACE_MS).unref();
    server.close().then(
      () => process.exit(0),
      (err: unknown) => {
        ctx.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  if (stopRequested) stop(stopRequested);
}

/**
 * What `namazu serve` runs beside the server: the admin channel of an embedded data directory
 * (this process's alone: admin commands reach it through here) and the sources, run once a node
 * whatever its number of workers (docs/sources.md). Both stop in the app's first `preClose` hook,
 * before the real-time connections close: no telegram comes in after them.
 */
const besideTheServer = fp(
  async (app: FastifyInstance, { ctx }: { ctx: AppContext }) => {
    const stops: Array<() => Promise<void>> = [];
    if (ctx.config.databaseUrl === null) stops.push(await serveAdminChannel(ctx));
    if (ctx.config.sources.length > 0 && isFirstWorker()) {
      const sources = startSources(ctx.config, ctx);
      stops.push(() => sources.stop());
    }
    app.addHook('preClose', async () => {
      for (const stop of stops.reverse())
        await stop().catch((err: unknown) => ctx.log.warn({ err }, 'shutdown step failed'));
    });
  },
  { name: 'namazu-serve' },
);

/**
 * What the operator needs to know at start, on stderr beside the JSON log (and logged): how to create
 * the first administrator when there is none; after a first start with the demo setup, where its
 * password went.
 */
async function tellOperator(ctx: AppContext, demoShownNow: boolean, target: string): Promise<void> {
  if (!(await hasAdministrator(ctx.db))) {
    const create = firstAdministratorCommand(target);
    ctx.log.warn({ create }, 'no administrator yet');
    process.stderr.write(
      `namazu: no administrator yet. Create the first one (then sign in to the console at /account):\n` +
        `  ${create}\n`,
    );
    return;
  }
  if (!ctx.config.demo || demoShownNow || !(await findAccountByEmail(ctx.db, DEMO_EMAIL))) return;
  const file = demoCredentialsPath(ctx.config.dataDir, ctx.config.databaseUrl === null);
  const where = existsSync(file) ? `is in ${file}` : 'was shown once, on the first start';
  process.stderr.write(
    `namazu: the demo account ${DEMO_EMAIL}'s password ${where}; ` +
      `to set another: npx namazu account password --email ${DEMO_EMAIL}${target}\n`,
  );
}

/** namazu migrate [--data-dir D] [--database-url U] */
export async function migrateCommand(argv: string[]): Promise<void> {
  const { values } = parseFlags(argv, { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' } });
  // withDatabase migrates before running the command; report what the database holds afterwards.
  const applied = await withDatabase(values, async ({ db }) =>
    (await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).map((r) => r.name),
  );
  process.stdout.write(JSON.stringify({ migrations: applied }) + '\n');
}
