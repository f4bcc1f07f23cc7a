/**
 * Bus connections that fail without telling: a listening connection whose peer stops answering
 * (a NAT or firewall that dropped its state, a server host gone) sends no error and no close, and a
 * network that drops what passes accepts a new connection and never answers it. The bus must notice
 * and connect again, or it hears nothing more until restarted; a publish must not hang either.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPostgresBus } from '../../src/bus/postgres.ts';
import { BUS_CONNECT_TIMEOUT_MS, SILENCE_CHECK_MS } from '../../src/bus/silence.ts';
import { createRedisBus } from '../../src/bus/redis.ts';
import type { Bus } from '../../src/bus/types.ts';
import { TcpRelay } from '../support/tcp-relay.ts';
import { waitFor } from '../support/wait.ts';

interface Engine {
  url: string;
  defaultPort: number;
  open(url: string): Promise<Bus>;
}

const CHANNEL = 'namazu_test_faults';

/** `bus` reaches the server through `relay`; both are closed after `body`, whatever it left. */
async function throughRelay(engine: Engine, body: (bus: Bus, relay: TcpRelay) => Promise<void>) {
  const relay = new TcpRelay(new URL(engine.url), engine.defaultPort);
  await relay.listen();
  const bus = await engine.open(relay.url());
  try {
    await body(bus, relay);
  } finally {
    // A silenced connection never answers: a bus that kept one may wait for it while closing.
    await Promise.race([bus.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    await relay.close().catch(() => {});
  }
}

/** A listener behind the relay and a publisher beside it: `heard` publishes until the listener hears. */
async function listening(
  engine: Engine,
  body: (heard: (what: string, timeout: number) => Promise<void>, relay: TcpRelay) => Promise<void>,
) {
  const publishing = await engine.open(engine.url);
  try {
    await throughRelay(engine, async (listener, relay) => {
      const got: string[] = [];
      await listener.subscribe(CHANNEL, (p) => got.push(p));
      let sent = 0;
      const heard = async (what: string, timeout: number) => {
        got.length = 0;
        await waitFor(
          async () => {
            if (got.length > 0) return true;
            await publishing.publish(CHANNEL, `message ${sent++}`);
            return false;
          },
          { timeout, interval: 200, message: what },
        );
      };
      await body(heard, relay);
    });
  } finally {
    await publishing.close();
  }
}

const faults: [string, (engine: Engine) => Promise<void>][] = [
  [
    'a listener whose connection goes silent is replaced and hears again',
    (engine) =>
      listening(engine, async (heard, relay) => {
        await heard('the listener to hear before the silence', 15_000);
        relay.silence();
        await heard('the listener to hear again after its connection went silent', 15_000);
      }),
  ],
  [
    'a listener whose new connection hangs gives it up and hears again once the network is back',
    (engine) =>
      listening(engine, async (heard, relay) => {
        relay.blackhole();
        // Long enough for the silence to be noticed and a new connection to hang.
        await new Promise((resolve) => setTimeout(resolve, 3 * SILENCE_CHECK_MS));
        relay.heal();
        await heard('the listener to hear again', BUS_CONNECT_TIMEOUT_MS + 4 * SILENCE_CHECK_MS);
      }),
  ],
  [
    'a publish whose connection stops answering fails within the time-out instead of hanging',
    (engine) =>
      throughRelay(engine, async (bus, relay) => {
        await bus.publish(CHANNEL, 'before');
        relay.blackhole();
        const started = performance.now();
        await assert.rejects(bus.publish(CHANNEL, 'x'));
        assert.ok(performance.now() - started < BUS_CONNECT_TIMEOUT_MS + 2000);
      }),
  ],
];

const engines: [string, string | undefined, Omit<Engine, 'url'>][] = [
  [
    'PostgreSQL',
    process.env.NAMAZU_TEST_DATABASE_URL,
    { defaultPort: 5432, open: (url) => createPostgresBus(url) },
  ],
  ['Redis', process.env.NAMAZU_TEST_REDIS_URL, { defaultPort: 6379, open: (url) => createRedisBus(url) }],
];

for (const [name, url, engine] of engines)
  for (const [what, run] of faults)
    test(`${name}: ${what}`, { skip: url ? false : `no ${name} for the tests` }, () =>
      run({ ...engine, url: url! }),
    );
