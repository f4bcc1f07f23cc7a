import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ingestTelegram } from '../../../src/telegrams/ingest.ts';
import { Browser, signInThroughForm } from '../../support/browser.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

/**
 * The live view's event stream over HTTP (docs/console-live.md "The stream"): only what the
 * account's contracts cover, ids that are serials, resuming by Last-Event-ID, and the end of the
 * stream with the sign-in session.
 */

const SAMPLES = join(process.env.NAMAZU_FIXTURES ?? '../shared/fixtures', 'jma-xml', 'jma-official-samples');

let server: TestServer;
let browser: Browser;

/** A browser signed in to the live view of `on`. */
async function signedInToLive(on: TestServer): Promise<Browser> {
  const { account, password } = await on.createAccount({ contracts: ['telegram.earthquake'] });
  const signedIn = new Browser();
  const page = await signedIn.get(`${on.url}/console/live`);
  assert.equal(page.status, 303);
  const done = await signInThroughForm(signedIn, page.headers.get('location')!, account.email, password);
  assert.equal(done.status, 303);
  return signedIn;
}

before(async () => {
  server = await startTestServer();
  browser = await signedInToLive(server);
});
after(() => server.close());

async function ingest(file: string): Promise<{ serial: number; converted?: number }> {
  const outcome = await ingestTelegram(server.ctx, readFileSync(join(SAMPLES, file)), {
    receivedTime: Date.now(),
    fileName: file,
  });
  assert.ok(outcome.ok && !outcome.stored.duplicate);
  return { serial: outcome.stored.serial, converted: outcome.converted?.serial };
}

interface SseEvent {
  id: number;
  event: string | null;
  data: string | null;
}

/** An open stream: its events as they arrive, parsed; `until` waits for one that matches. */
async function open(headers: Record<string, string> = {}, query = '', on = { server, browser }) {
  const cookie = [...on.browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const controller = new AbortController();
  const res = await fetch(`${on.server.url}/console/live/events${query}`, {
    headers: { cookie, ...headers },
    signal: controller.signal,
  });
  const events: SseEvent[] = [];
  const waiters: (() => void)[] = [];
  let ended = false;
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut;
        while ((cut = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const field = (name: string) =>
            block
              .split('\n')
              .find((l) => l.startsWith(`${name}: `))
              ?.slice(name.length + 2) ?? null;
          const id = field('id');
          if (id !== null) events.push({ id: Number(id), event: field('event'), data: field('data') });
        }
        for (const w of waiters.splice(0)) w();
      }
    } catch {
      // aborted
    }
    ended = true;
    for (const w of waiters.splice(0)) w();
  })();
  return {
    res,
    events,
    get ended() {
      return ended;
    },
    async until(done: () => boolean, what: string, ms = 5000): Promise<void> {
      const deadline = Date.now() + ms;
      while (!done()) {
        if (ended || Date.now() > deadline) throw new Error(`stream: ${what} did not happen`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    async close() {
      controller.abort();
      await reading;
    },
  };
}

test('without a session the stream is refused', async () => {
  const res = await fetch(`${server.url}/console/live/events`);
  assert.equal(res.status, 401);
  await res.body?.cancel();
});

test('only covered telegrams are sent, with serials as ids; a reconnect resumes after Last-Event-ID', async () => {
  const stream = await open();
  assert.equal(stream.res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const weather = await ingest('15_12_01_161130_VPWW54.xml');
  const quake = await ingest('32-35_01_01_100806_VXSE51.xml');
  assert.ok(quake.converted);
  await stream.until(() => stream.events.some((e) => e.id >= quake.converted!), 'the conversion id');
  const shown = stream.events.filter((e) => e.event === 'telegram');
  assert.deepEqual(
    shown.map((e) => e.id),
    [quake.serial],
  );
  assert.equal((JSON.parse(shown[0]!.data!) as { type: string }).type, 'VXSE51');
  // Nothing at all was said of the weather telegram: at most its id, alone.
  assert.ok(stream.events.every((e) => e.id !== weather.serial || e.event === null));
  assert.ok(stream.events.every((e, i) => i === 0 || e.id > stream.events[i - 1]!.id));
  await stream.close();

  const resumed = await open({ 'last-event-id': String(weather.serial - 1) });
  await resumed.until(() => resumed.events.some((e) => e.event === 'telegram'), 'the replay');
  assert.deepEqual(
    resumed.events.filter((e) => e.event === 'telegram').map((e) => e.id),
    [quake.serial],
  );
  await resumed.close();
});

test('the stream ends when its session ends', async () => {
  const stream = await open();
  const page = await browser.get(`${server.url}/account`);
  const signout = await browser.submit(await page.text(), '/account/signout');
  assert.equal(signout.status, 303);
  await stream.until(() => stream.ended, 'the end of the stream', 12_000);
  const again = await fetch(`${server.url}/console/live/events`, {
    headers: { cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
  });
  assert.equal(again.status, 401);
  await again.body?.cancel();
});

test("a quiet stream outlives the server's idle time-out (NAMAZU_IDLE_TIMEOUT_MS below the 15 s comment line)", async () => {
  const quiet = await startTestServer({ config: { idleTimeoutMs: 2000 } });
  try {
    const stream = await open({}, '', { server: quiet, browser: await signedInToLive(quiet) });
    assert.equal(stream.res.status, 200);
    // Twice the idle time-out without a telegram: the comment lines keep the stream open.
    await new Promise((resolve) => setTimeout(resolve, 4500));
    assert.equal(stream.ended, false, 'the stream is still open');
    await stream.close();
  } finally {
    await quiet.close();
  }
});
