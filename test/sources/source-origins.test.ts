/**
 * Finding 5 of the second adversarial round (docs/security.md): an attacker controlling the
 * configured feed or upstream points the sources elsewhere. Feed entry links and redirects to
 * another address (127.0.0.2) are not followed, a text answer is not stored as a telegram of the
 * type its file name says, and the relay neither fetches a list item's body from another host nor
 * sends the upstream credential there.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { JmaFeedSource } from '../../src/sources/jma-feed.ts';
import { savePosition } from '../../src/sources/positions.ts';
import { UpstreamRelay } from '../../src/sources/upstream.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { REAL } from './feed-server.ts';
import { listItem, startFakeUpstream, type FakeUpstream } from './fake-upstream.ts';

const QUAKE = '20210216071046_0_VXSE53_270000.xml';
const quakeXml = (n: string) =>
  Buffer.concat([readFileSync(join(REAL, QUAKE)), Buffer.from(`\n<!-- ${n} -->\n`)]);

let server: TestServer;
let elsewhere: { origin: string; requests: IncomingMessage[]; server: Server };
const stops: (() => Promise<unknown>)[] = [];

before(async () => {
  server = await startTestServer({ listen: false });
  // The address the attacker wants reached: another host on the loopback network.
  const requests: IncomingMessage[] = [];
  const s = createServer((req, res) => {
    requests.push(req);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('data from elsewhere');
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.2', resolve));
  elsewhere = { origin: `http://127.0.0.2:${(s.address() as AddressInfo).port}`, requests, server: s };
});
after(async () => {
  elsewhere.server.closeAllConnections();
  elsewhere.server.close();
  await server.close();
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  elsewhere.requests.length = 0;
  await server.ctx.db.query('DELETE FROM telegrams');
  await server.ctx.db.query('DELETE FROM source_positions');
});

const rejections = async () =>
  (await server.ctx.metrics.sourceRejections.get()).values.reduce((n, v) => n + v.value, 0);
const stored = () =>
  server.ctx.db.query<{ type: string; format: string }>(
    `SELECT type, format FROM telegrams WHERE format <> 'json' ORDER BY serial`,
  );

test('feed: links and redirects to another origin are not followed; a text answer is not stored', async () => {
  const name = (n: number) => `2026112300000${n}_0_VXSE53_010000.xml`;
  let origin = '';
  const links = () => [
    `${elsewhere.origin}/data/${name(1)}`, // another host
    `${origin}/moved/${name(2)}`, // a redirect to another host
    `${origin}/text/${name(3)}`, // a text answer under a telegram's file name
    `${origin}/data/${name(4)}`, // a real telegram
  ];
  const feedHost = createServer((req, res) => {
    const path = req.url!;
    if (path === '/feed.xml') {
      const entries = links()
        .map(
          (href) =>
            `<entry><id>${href}</id><updated>2026-11-23T00:00:00Z</updated><link href="${href}"/></entry>`,
        )
        .join('');
      return res
        .writeHead(200, { 'content-type': 'application/atom+xml' })
        .end(`<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">${entries}</feed>`);
    }
    if (path.startsWith('/moved/'))
      return res.writeHead(302, { location: `${elsewhere.origin}/data/x.xml` }).end();
    if (path.startsWith('/text/'))
      return res.writeHead(200, { 'content-type': 'text/plain' }).end('震度3 TEXT');
    res.writeHead(200, { 'content-type': 'application/xml' }).end(quakeXml('feed'));
  });
  await new Promise<void>((resolve) => feedHost.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(feedHost.address() as AddressInfo).port}`;
  stops.push(
    () =>
      new Promise((resolve) => {
        feedHost.closeAllConnections();
        feedHost.close(resolve);
      }),
  );
  const rejectedBefore = await rejections();
  const source = new JmaFeedSource(server.ctx, {
    urls: [`${origin}/feed.xml`],
    intervalMs: 60_000,
    timeoutMs: 5000,
    // The text answer is refused at once, as the links elsewhere are (no grace to wait through).
    entryGraceMs: 0,
  });
  stops.push(() => source.stop());
  await source.pollOnce();

  assert.equal(elsewhere.requests.length, 0, 'nothing was asked of the other host');
  assert.deepEqual(await stored(), [{ type: 'VXSE53', format: 'xml' }], 'only the real telegram is stored');
  assert.equal((await rejections()) - rejectedBefore, 3);
  // The refused entries are recorded: the next poll does not ask for them again.
  await source.pollOnce();
  assert.equal(elsewhere.requests.length, 0);
});

test('relay: a body on another host is not fetched and the credential never leaves the upstream', async () => {
  const upstream: FakeUpstream = await startFakeUpstream();
  stops.push(() => upstream.close());
  upstream.list = (_req, res, url) => {
    const first = url.searchParams.get('cursorToken') === 'start';
    const items = first
      ? [
          listItem('on-another-host', `${elsewhere.origin}/v1/on-another-host`),
          listItem('redirected', `${upstream.origin}/v1/redirected`),
          listItem('own', `${upstream.origin}/v1/own`),
        ]
      : [];
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(
        JSON.stringify({ status: 'ok', items: [...items].reverse(), nextPooling: first ? 'next' : 'next' }),
      );
  };
  upstream.other = (req, res, url) => {
    if (url.pathname === '/v1/redirected')
      return res.writeHead(302, { location: `${elsewhere.origin}/v1/redirected` }).end();
    res.writeHead(200, { 'content-type': 'application/xml' }).end(quakeXml(`relay ${req.url}`));
  };
  await savePosition(server.ctx.db, `upstream ${upstream.origin}`, { nextPooling: 'start' });
  const rejectedBefore = await rejections();
  const relay = new UpstreamRelay(server.ctx, {
    url: upstream.origin,
    credential: { apiKey: 'upstream-secret-key' },
    classifications: ['telegram.earthquake'],
    connections: 1,
    timeoutMs: 5000,
  });
  stops.push(() => relay.stop());
  relay.start();
  await waitFor(async () => (await stored()).length === 1 && (await rejections()) - rejectedBefore === 2, {
    timeout: 15_000,
    message: 'the own body stored, the two others refused',
  });
  assert.equal(elsewhere.requests.length, 0, 'nothing was asked of the other host');
  assert.ok(
    upstream.requests.every(
      (r) => r.headers.authorization === `Basic ${Buffer.from('upstream-secret-key:').toString('base64')}`,
    ),
  );
});

test('relay with NAMAZU_UPSTREAM_DATA_URL: bodies on that origin are fetched, with the credential', async () => {
  const upstream: FakeUpstream = await startFakeUpstream();
  stops.push(() => upstream.close());
  upstream.list = (_req, res, url) => {
    const items =
      url.searchParams.get('cursorToken') === 'start'
        ? [listItem('on-the-data-origin', `${elsewhere.origin}/v1/on-the-data-origin`)]
        : [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 'ok', items, nextPooling: 'next' }));
  };
  await savePosition(server.ctx.db, `upstream ${upstream.origin}`, { nextPooling: 'start' });
  const relay = new UpstreamRelay(server.ctx, {
    url: upstream.origin,
    dataUrl: elsewhere.origin,
    credential: { apiKey: 'upstream-secret-key' },
    classifications: ['telegram.earthquake'],
    connections: 1,
    timeoutMs: 5000,
  });
  stops.push(() => relay.stop());
  relay.start();
  await waitFor(() => elsewhere.requests.length === 1, { timeout: 15_000, message: 'the body fetched' });
  assert.equal(elsewhere.requests[0]!.url, '/v1/on-the-data-origin');
  assert.equal(
    elsewhere.requests[0]!.headers.authorization,
    `Basic ${Buffer.from('upstream-secret-key:').toString('base64')}`,
  );
});
