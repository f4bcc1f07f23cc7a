import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { API_KEYS_PAGE } from '../../src/accounts/api-keys.ts';
import { accountCaps } from '../../src/accounts/caps.ts';
import { createClient } from '../../src/issuer/clients.ts';
import { MAX_FINISHED_SESSIONS } from '../../src/sessions/socket-sessions.ts';
import { parseForms, signedInBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

// Attack (docs/security.md "Standing probes"): create API keys, OAuth clients and WebSocket
// sessions without end, also at once, so that the tables grow and older keys drop out of the
// console's list while they stay valid. Each is capped per account, the caps hold under
// concurrency, and the console lists every key page by page.
let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(() => server.close());

async function account(contracts: string[] = []) {
  const { account, password } = await server.createAccount({ contracts });
  // Signed in once the slow preparations are done: a pooled connection idle past the server's
  // keep-alive time-out meanwhile is no part of what is tested here.
  return { id: account.id, browser: () => signedInBrowser(server.url, account.email, password) };
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

test('API keys: the cap holds for 40 creations at once; every key is listed, page by page', async () => {
  const signedUp = await account();
  const left = 20;
  for (let i = 0; i < accountCaps.apiKeys - left; i++)
    await server.createApiKey(signedUp.id, ['telegram.list']);
  const { id } = signedUp;
  const browser = await signedUp.browser();
  const page = await (await browser.get(`${server.url}/account/keys`)).text();
  const form = parseForms(page).find((f) => f.action.endsWith('/account/keys'))!;
  // Without the form's `newest`, 40 posts are 40 requests for a key, not one form sent again.
  const fields = form.fields.filter(([name]) => name !== 'newest');
  const answers = await Promise.all(
    Array.from({ length: 40 }, () => browser.post(form.action, [...fields, ['scope', 'telegram.list']])),
  );
  const statuses = answers.map((r) => r.status);
  assert.equal(count(statuses, 201), left, statuses.join(' '));
  assert.equal(count(statuses, 409), 40 - left);
  const refused = await answers.find((r) => r.status === 409)!.text();
  assert.match(refused, new RegExp(`holds ${accountCaps.apiKeys} API keys, its limit`));
  for (const r of answers) if (r.status !== 409) await r.arrayBuffer();

  // Every live key appears once across the pages, newest first; the dashboard counts them all.
  const listed: number[] = [];
  let url: string | null = `${server.url}/account/keys`;
  while (url) {
    const html: string = await (await browser.get(url)).text();
    listed.push(...[...html.matchAll(/<td data-label="ID">#(\d+)<\/td>/g)].map((m) => Number(m[1])));
    const older = /<a id="older-keys" href="([^"]+)">/.exec(html)?.[1];
    url = older ? `${server.url}${older.replace(/&amp;/g, '&')}` : null;
  }
  const live = await server.ctx.db.query<{ id: number }>(
    'SELECT id FROM api_keys WHERE account_id = $1 AND revoked_at IS NULL ORDER BY id DESC',
    [id],
  );
  assert.ok(live.length > API_KEYS_PAGE, 'more than one page');
  assert.deepEqual(
    listed,
    live.map((r) => r.id),
  );
  const dashboard = await (await browser.get(`${server.url}/account`)).text();
  assert.match(dashboard, new RegExp(`<p class="figure">${accountCaps.apiKeys}</p>`));
});

test('OAuth clients: creation over the cap is refused with the reason', async () => {
  const signedUp = await account();
  const { id } = signedUp;
  for (let i = 0; i < accountCaps.oauthClients; i++)
    await createClient(server.ctx.db, server.ctx.pepper, {
      accountId: id,
      name: `app ${i}`,
      type: 'confidential',
      grants: ['client_credentials'],
      redirectUris: [],
      scopes: ['telegram.list'],
    });
  const browser = await signedUp.browser();
  const page = await (await browser.get(`${server.url}/account/clients/new`)).text();
  const form = parseForms(page).find((f) => f.action.endsWith('/account/clients'))!;
  const res = await browser.post(form.action, [
    ...form.fields,
    ['name', 'one more'],
    ['type', 'confidential'],
    ['grant', 'client_credentials'],
    ['scope', 'telegram.list'],
  ]);
  assert.equal(res.status, 409);
  assert.match(await res.text(), new RegExp(`holds ${accountCaps.oauthClients} OAuth clients, its limit`));
  const held = await server.ctx.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM oauth_clients WHERE account_id = $1',
    [id],
  );
  assert.equal(held[0]!.n, accountCaps.oauthClients);
});

test('WebSocket sessions: an account keeps at most its newest finished sessions', async () => {
  const { id } = await account(['telegram.earthquake']);
  // What a loop of starts and closes leaves behind, beyond the cap.
  await server.ctx.db.query(
    `INSERT INTO socket_sessions (account_id, ticket_digest, ticket_hint, classifications, test,
       format_mode, status, start_at, expires_at, end_at)
     SELECT $1::bigint, 'digest-' || $1::bigint || '-' || g, 'hint', '{telegram.earthquake}', 'no', 'raw', 'closed',
       now(), now(), now()
     FROM generate_series(1, $2::int) AS g`,
    [id, MAX_FINISHED_SESSIONS + 50],
  );
  const key = await server.createApiKey(id, ['socket.start', 'telegram.get.earthquake']);
  const res = await fetch(`${server.url}/v2/socket`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ classifications: ['telegram.earthquake'] }),
  });
  assert.equal(res.status, 200);
  const rows = await server.ctx.db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM socket_sessions WHERE account_id = $1 GROUP BY status ORDER BY status',
    [id],
  );
  assert.deepEqual(rows, [
    { status: 'closed', n: MAX_FINISHED_SESSIONS },
    { status: 'waiting', n: 1 },
  ]);
});
