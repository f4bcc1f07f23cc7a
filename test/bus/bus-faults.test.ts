/**
 * Bus connections that fail without telling: a listening connection whose peer stops answering
 * (a NAT or firewall that dropped its state, a server host gone) sends no error and no close. The
 * bus must notice it and listen again on a new connection, or it hears nothing more until restarted.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPostgresBus } from '../../src/bus/postgres.ts';
import { BUS_CONNECT_TIMEOUT_MS, SILENCE_CHECK_MS } from '../../src/bus/silence.ts';
import { createRedisBus } from '../../src/bus/redis.ts';
import type { Bus } from '../../src/bus/types.ts';
import { TcpRelay } from '../support/tcp-relay.ts';
import { waitFor } from '../support/wait.ts';

const pgUrl = process.env.NAMAZU_TEST_DATABASE_URL || null;
const redisUrl = process.env.NAMAZU_TEST_REDIS_URL || null;

async function hearsAgainAfterSilence(url: string, defaultPort: number, open: (url: string) => Promise<Bus>) {
  const relay = new TcpRelay(new URL(url), defaultPort);
  await relay.listen();
  const listening = await open(relay.url());
  const publishing = await open(url);
  try {
    const got: string[] = [];
    await listening.subscribe('namazu_test_silence', (p) => got.push(p));
    let sent = 0;
    const heard = (what: string) =>
      waitFor(
        async () => {
          if (got.length > 0) return true;
          await publishing.publish('namazu_test_silence', `message ${sent++}`);
          return false;
        },
        { timeout: 15_000, interval: 200, message: what },
      );
    await heard('the listener to hear before the silence');
    relay.silence();
    got.length = 0;
    await heard('the listener to hear again after its connection went silent');
  } finally {
    await publishing.close();
    // The silenced connections never answer: a bus that kept one may wait for it while closing.
    await Promise.race([listening.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    await relay.close().catch(() => {});
  }
}

/**
 * The network drops everything for a while, new connections included: the listener's replacement
 * is accepted and never answered. Once the network is back the bus hears again, soon: a connection
 * attempt that hangs is given up, not waited for until the process restarts.
 */
async function hearsAgainAfterBlackhole(
  url: string,
  defaultPort: number,
  open: (url: string) => Promise<Bus>,
) {
  const relay = new TcpRelay(new URL(url), defaultPort);
  await relay.listen();
  const listening = await open(relay.url());
  const publishing = await open(url);
  try {
    const got: string[] = [];
    await listening.subscribe('namazu_test_blackhole', (p) => got.push(p));
    relay.blackhole();
    // Long enough for the silence to be noticed and a new connection to hang.
    await new Promise((resolve) => setTimeout(resolve, 3 * SILENCE_CHECK_MS));
    relay.heal();
    let sent = 0;
    await waitFor(
      async () => {
        if (got.length > 0) return true;
        await publishing.publish('namazu_test_blackhole', `message ${sent++}`);
        return false;
      },
      {
        timeout: BUS_CONNECT_TIMEOUT_MS + 4 * SILENCE_CHECK_MS,
        interval: 200,
        message: 'the listener to hear again',
      },
    );
  } finally {
    await publishing.close();
    await Promise.race([listening.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    await relay.close().catch(() => {});
  }
}

test(
  'PostgreSQL: a listener whose new connection hangs gives it up and hears again once the network is back',
  { skip: pgUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set' },
  () => hearsAgainAfterBlackhole(pgUrl!, 5432, (url) => createPostgresBus(url)),
);

/** A publish whose connection stops answering fails within the time-out: a request awaiting it does not hang. */
async function publishGivesUp(url: string, defaultPort: number, open: (url: string) => Promise<Bus>) {
  const relay = new TcpRelay(new URL(url), defaultPort);
  await relay.listen();
  const bus = await open(relay.url());
  try {
    await bus.publish('namazu_test_blackhole', 'before');
    relay.blackhole();
    const started = performance.now();
    await assert.rejects(bus.publish('namazu_test_blackhole', 'x'));
    assert.ok(performance.now() - started < BUS_CONNECT_TIMEOUT_MS + 2000);
  } finally {
    await Promise.race([bus.close(), new Promise((resolve) => setTimeout(resolve, 1000))]);
    await relay.close().catch(() => {});
  }
}

test(
  'PostgreSQL: a publish whose connection stops answering fails within the time-out instead of hanging',
  { skip: pgUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set' },
  () => publishGivesUp(pgUrl!, 5432, (url) => createPostgresBus(url)),
);

test(
  'Redis: a publish whose connection stops answering fails within the time-out instead of hanging',
  { skip: redisUrl ? false : 'NAMAZU_TEST_REDIS_URL is not set' },
  () => publishGivesUp(redisUrl!, 6379, (url) => createRedisBus(url)),
);

test(
  'Redis: a subscriber whose new connection hangs gives it up and hears again once the network is back',
  { skip: redisUrl ? false : 'NAMAZU_TEST_REDIS_URL is not set' },
  () => hearsAgainAfterBlackhole(redisUrl!, 6379, (url) => createRedisBus(url)),
);

test(
  'PostgreSQL: a listener whose connection goes silent is replaced and hears again',
  { skip: pgUrl ? false : 'NAMAZU_TEST_DATABASE_URL is not set' },
  () => hearsAgainAfterSilence(pgUrl!, 5432, (url) => createPostgresBus(url)),
);

test(
  'Redis: a subscriber whose connection goes silent is replaced and hears again',
  { skip: redisUrl ? false : 'NAMAZU_TEST_REDIS_URL is not set' },
  () => hearsAgainAfterSilence(redisUrl!, 6379, (url) => createRedisBus(url)),
);
