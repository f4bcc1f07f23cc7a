import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { issueCode } from '../../src/issuer/codes.ts';
import { createClient } from '../../src/issuer/clients.ts';
import { createMemoryBus } from '../../src/bus/memory.ts';
import { channels, type Bus, type BusHandler } from '../../src/bus/types.ts';
import { closeCodes, closeMessages } from '../../src/realtime/protocol.ts';
import { parseForms, signedInBrowser } from '../support/browser.ts';
import { ingestFixtures } from '../support/data-api.ts';
import { fixtureIndex } from '../support/fixtures.ts';
import { TestClient } from '../support/realtime.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

// Attack (docs/security.md "Standing probes"): keep receiving telegrams on a WebSocket after the
// account was cut off — its API key revoked in the console, its OAuth authorization revoked in the
// console or through the revocation endpoint, the account disabled by an administrator. Each
// connection is closed with 4808 at once (the revocation is announced on the bus, so it reaches
// every process), and a telegram ingested afterwards reaches a control connection, not them.

const CLASSIFICATION = 'telegram.earthquake';
const SCOPES = ['socket.start', 'telegram.get.earthquake'];
const cutOff = { type: 'error', error: closeMessages.cutOff, code: closeCodes.closedByAccount, close: true };

interface Opened {
  client: TestClient;
  received: { type?: string }[];
}

/** Starts a session with `authorization` and connects; every message after `start` is kept. */
async function openSocket(server: TestServer, authorization: string): Promise<Opened> {
  const res = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ classifications: [CLASSIFICATION] }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const { websocket } = (await res.json()) as { websocket: { url: string } };
  const client = new TestClient(websocket.url);
  assert.equal((await client.next<{ type: string }>()).type, 'start');
  const received: { type?: string }[] = [];
  void (async () => {
    for (;;) received.push(await client.next());
  })();
  return { client, received };
}

const keyAuth = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;

async function closedAsCutOff(opened: Opened) {
  assert.equal((await opened.client.closed).code, closeCodes.closedByAccount);
  assert.deepEqual(
    opened.received.filter((m) => m.type !== 'ping'),
    [cutOff],
  );
}

/** An authorization of `accountId` for a new client of its own: tokens and the grant id. */
async function authorization(server: TestServer, accountId: number) {
  const { db, pepper } = server.ctx;
  const { client, clientSecret } = await createClient(db, pepper, {
    accountId,
    name: 'cut-off test app',
    type: 'confidential',
    grants: ['authorization_code', 'refresh_token'],
    redirectUris: ['https://app.example/cb'],
    scopes: SCOPES,
  });
  const { code, grantId } = await issueCode(db, pepper, server.ctx.clock, {
    clientId: client.clientId,
    accountId,
    redirectUri: 'https://app.example/cb',
    scopes: SCOPES,
    codeChallenge: null,
    codeChallengeMethod: null,
    dpopJkt: null,
  });
  const basic = `Basic ${Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64')}`;
  const res = await fetch(`${server.url}/account/oauth2/v1/token`, {
    method: 'POST',
    headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'https://app.example/cb',
    }),
  });
  assert.equal(res.status, 200);
  const tokens = (await res.json()) as { access_token: string; refresh_token: string };
  return { ...tokens, grantId, basic };
}

describe('cut off accounts and credentials', () => {
  let server: TestServer;
  before(async () => {
    // Pings every hour: only the revocation itself can close the connections during the test.
    server = await startTestServer({ config: { pingIntervalMs: 3_600_000 } });
  });
  after(() => server.close());

  test('revoking a key or an authorization, or disabling the account, closes its WebSockets', async () => {
    // Room for every connection of the test at once (8).
    const holder = await server.createAccount({
      contracts: [CLASSIFICATION, 'websocket.plus5', 'websocket.plus2'],
    });
    const owner = await signedInBrowser(server.url, holder.account.email, holder.password);
    const control = await server.createAccount({ contracts: [CLASSIFICATION] });
    const controlSocket = await openSocket(
      server,
      keyAuth(await server.createApiKey(control.account.id, SCOPES)),
    );

    // An API key revoked in the console; a ticket of that key not yet used opens nothing.
    const key = await server.createApiKey(holder.account.id, SCOPES);
    const byKey = await openSocket(server, keyAuth(key));
    const waiting = await fetch(`${server.url}/v2/socket`, {
      method: 'POST',
      headers: { authorization: keyAuth(key), 'content-type': 'application/json' },
      body: JSON.stringify({ classifications: [CLASSIFICATION] }),
    });
    const ticketUrl = ((await waiting.json()) as { websocket: { url: string } }).websocket.url;
    const keys = await owner.get(`${server.url}/account/keys`);
    const revokeKey = await owner.submit(await keys.text(), '/revoke');
    assert.equal(revokeKey.status, 303);
    await closedAsCutOff(byKey);
    const late = new TestClient(ticketUrl);
    assert.equal((await late.closed).code, closeCodes.unknownTicket);

    // An authorization revoked in the console.
    const app = await authorization(server, holder.account.id);
    const byToken = await openSocket(server, `Bearer ${app.access_token}`);
    const account = await owner.get(`${server.url}/account`);
    const revokeGrant = await owner.submit(await account.text(), `/authorizations/${app.grantId}/revoke`);
    assert.equal(revokeGrant.status, 303);
    await closedAsCutOff(byToken);

    // An authorization ended through the revocation endpoint (its refresh token).
    const other = await authorization(server, holder.account.id);
    const byRefreshed = await openSocket(server, `Bearer ${other.access_token}`);
    const revoked = await fetch(`${server.url}/account/oauth2/v1/revoke`, {
      method: 'POST',
      headers: { authorization: other.basic, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: other.refresh_token }),
    });
    assert.equal(revoked.status, 200);
    await closedAsCutOff(byRefreshed);

    // The account disabled by an administrator: every connection it holds.
    const admin = await server.createAccount({ admin: true });
    const adminBrowser = await signedInBrowser(server.url, admin.account.email, admin.password);
    const disabledSockets = [
      await openSocket(server, keyAuth(await server.createApiKey(holder.account.id, SCOPES))),
      await openSocket(server, `Bearer ${(await authorization(server, holder.account.id)).access_token}`),
    ];
    const accounts = await adminBrowser.get(`${server.url}/console/admin/accounts`);
    const form = parseForms(await accounts.text()).find((f) =>
      f.action.endsWith(`/console/admin/accounts/${holder.account.id}/disable`),
    )!;
    const disable = await adminBrowser.post(new URL(form.action, server.url).href, form.fields);
    assert.equal(disable.status, 303);
    for (const s of disabledSockets) await closedAsCutOff(s);

    // A telegram ingested afterwards reaches the control connection only.
    const entry = fixtureIndex().find((e) => e.classification === CLASSIFICATION)!;
    await ingestFixtures(server, [entry]);
    await waitFor(() => controlSocket.received.some((m) => m.type === 'data'), { message: 'control data' });
    for (const s of [byKey, byToken, byRefreshed, ...disabledSockets])
      assert.ok(!s.received.some((m) => m.type === 'data'), 'no telegram after the cut-off');
    controlSocket.client.ws.close();
  });
});

/** A bus on which revocations are never delivered (an announcement lost between nodes). */
class RevocationsLost implements Bus {
  private readonly inner = createMemoryBus();
  publish(channel: string, payload: string): Promise<void> {
    return channel === channels.revoked ? Promise.resolve() : this.inner.publish(channel, payload);
  }
  subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>> {
    return this.inner.subscribe(channel, handler);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

describe('a revocation whose announcement never arrived', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ bus: new RevocationsLost(), config: { pingIntervalMs: 1000 } });
  });
  after(() => server.close());

  test('closes the connection at the next ping tick', async () => {
    const holder = await server.createAccount({ contracts: [CLASSIFICATION] });
    const owner = await signedInBrowser(server.url, holder.account.email, holder.password);
    const opened = await openSocket(server, keyAuth(await server.createApiKey(holder.account.id, SCOPES)));
    const keys = await owner.get(`${server.url}/account/keys`);
    assert.equal((await owner.submit(await keys.text(), '/revoke')).status, 303);
    await closedAsCutOff(opened);
  });
});
