/**
 * The session list and close through the official SDK (@dmdata/sdk-js `socket.list`, `socket.close`),
 * checked against the production service's reference (socket.list.md, socket.close.md) and the
 * types of @dmdata/api-types: every field of an item, paging by `nextToken`, `id` alone, the close
 * and its 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DMDATA, SERVICES } from '@dmdata/sdk-js';
import type { APITypes } from '@dmdata/api-types';
import { startTestServer, type TestServer } from '../support/server.ts';
import { startSocket } from '../support/realtime.ts';

/** The fields socket.list.md lists for an item. */
const ITEM_FIELDS = [
  'appName',
  'classifications',
  'end',
  'formats',
  'id',
  'ipAddress',
  'ping',
  'server',
  'start',
  'status',
  'test',
  'ticket',
  'types',
];

describe('GET /v2/socket and DELETE /v2/socket/:id through the official SDK', () => {
  let server: TestServer;
  let sdk: DMDATA;
  let key: string;
  const started: number[] = [];

  before(async () => {
    server = await startTestServer();
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'websocket.plus5'],
    });
    key = await server.createApiKey(account.id, [
      'socket.start',
      'socket.list',
      'socket.close',
      'telegram.get.earthquake',
    ]);
    const endpoints = Object.fromEntries(SERVICES.map((s) => [s, `${server.url}/v2/${s}`]));
    sdk = new DMDATA({ credentials: { apikey: key }, endpoints } as ConstructorParameters<typeof DMDATA>[0]);
    // Started without connecting (the SDK's start opens the WebSocket at once): waiting sessions.
    for (const appName of ['one', 'two', 'three']) {
      const body = { classifications: ['telegram.earthquake'], types: ['VXSE53'], appName };
      started.push((await startSocket(server.url, key, body)).id);
    }
  });
  after(() => server.close());

  it('lists the sessions newest first with every documented field, two to a page', async () => {
    const first = await sdk.socket.list({ limit: 2 });
    assert.equal(first.data.status, 'ok');
    const items: APITypes.SocketList.Item[] = first.data.items;
    assert.deepEqual(
      items.map((i) => i.id),
      [started[2], started[1]],
    );
    for (const item of items) {
      assert.deepEqual(Object.keys(item).sort(), ITEM_FIELDS);
      assert.equal(typeof item.id, 'number');
      assert.equal(typeof item.ticket, 'string');
      assert.deepEqual(item.classifications, ['telegram.earthquake']);
      assert.equal(item.test, 'no');
      assert.deepEqual(item.types, ['VXSE53']);
      assert.deepEqual((item as unknown as { formats: string[] }).formats, ['xml', 'a/n', 'binary']);
      assert.match(item.start, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(item.end, null);
      assert.equal(item.ping, null);
      assert.equal(item.ipAddress, null);
      assert.equal(item.server, null);
      assert.equal(item.status, 'waiting');
    }
    assert.deepEqual(
      items.map((i) => i.appName),
      ['three', 'two'],
    );
    assert.equal(typeof first.data.nextToken, 'string');
    const second = await sdk.socket.list({ limit: 2, cursorToken: first.data.nextToken });
    assert.deepEqual(
      second.data.items.map((i) => i.id),
      [started[0]],
    );
    assert.equal(second.data.nextToken, undefined, 'no nextToken on the last page');
  });

  it('`id` alone names one session, whatever the other parameters say', async () => {
    const res = await sdk.socket.list({ id: String(started[1]), limit: 1, status: 'closed' });
    assert.deepEqual(
      res.data.items.map((i) => i.appName),
      ['two'],
    );
  });

  it('closes a session (no body), which the list then shows closed; an unknown id is 404', async () => {
    const closed = await sdk.socket.close(started[0]!);
    assert.equal(closed.status, 204);
    assert.equal(closed.data, '');
    const res = await sdk.socket.list({ status: 'closed' });
    assert.deepEqual(
      res.data.items.map((i) => i.id),
      [started[0]],
    );
    assert.match(res.data.items[0]!.end!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    await assert.rejects(
      sdk.socket.close(999_999),
      (err: { response?: { status: number; data: unknown } }) => {
        assert.equal(err.response?.status, 404);
        const body = err.response?.data as APITypes.SocketClose.ResponseError | { error: unknown };
        assert.deepEqual((body as { error: unknown }).error, { message: 'Socket ID not found.', code: 404 });
        return true;
      },
    );
  });
});
