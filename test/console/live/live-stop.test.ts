import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signedInBrowser, type Browser } from '../../support/browser.ts';
import { heldStop, startTestServer } from '../../support/server.ts';
import { waitFor } from '../../support/wait.ts';

/**
 * The live view's streams while the server stops (docs/operations.md "Stopping"): requests are
 * still answered while the app closes, so an open stream would hold the HTTP server open. The
 * streams end when the stop begins, and one opened during the stop (a browser reconnecting after
 * its `retry`) ends at once.
 */

/** A live view stream: whether it has ended, and what it received. */
function openStream(url: string, browser: Browser) {
  const cookie = [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const stream = { ended: false, body: '', headers: new Headers() };
  const done = fetch(`${url}/console/live/events`, { headers: { cookie } }).then(async (res) => {
    stream.headers = res.headers;
    stream.body = await res.text();
    stream.ended = true;
  });
  return { stream, done };
}

test('live view streams end when the stop begins, and one opened during the stop ends at once', async () => {
  const stop = heldStop();
  const server = await startTestServer({ plugins: [stop.plugin] });
  let closed: Promise<void> | undefined;
  try {
    const { account, password } = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const browser = await signedInBrowser(server.url, account.email, password);
    const before = openStream(server.url, browser);
    await waitFor(() => before.stream.headers.get('content-type'), { message: 'the first stream to open' });
    assert.equal(before.stream.ended, false);

    closed = server.close();
    await waitFor(stop.holding, { message: 'the stop to reach the held step' });
    await waitFor(() => before.stream.ended, { message: 'the open stream to end with the stop' });

    const during = openStream(server.url, browser);
    await waitFor(() => during.stream.ended, { message: 'a stream opened during the stop to end' });
    assert.match(during.stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(during.stream.body, 'retry: 1000\n\n');
    assert.equal(during.stream.headers.get('connection'), 'close');
  } finally {
    stop.release();
    await (closed ?? server.close());
  }
});
