/** A webhook made through the API by an account of its own, for tests of what its owner does with it. */
import assert from 'node:assert/strict';
import { getJson } from '../support/data-api.ts';
import type { TestServer } from '../support/server.ts';

/** Basic headers of a new API key of the account with `scopes`. */
export async function apiKey(server: TestServer, accountId: number, scopes: string[]) {
  const key = await server.createApiKey(accountId, scopes);
  return { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
}

/**
 * An account with a `telegram.earthquake` contract, its key of `scopes` (`manage`), and its webhook of
 * telegram.earthquake to `url`, made with that key: its id and signing secret.
 */
export async function ownedWebhook(
  server: TestServer,
  url: string,
  scopes = ['webhook.manage', 'webhook.list', 'telegram.get.earthquake'],
) {
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const manage = await apiKey(server, account.id, scopes);
  const created = await getJson(server, '/v2/webhook', {
    method: 'POST',
    headers: { ...manage, 'content-type': 'application/json' },
    body: JSON.stringify({ url, classifications: ['telegram.earthquake'] }),
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return {
    accountId: account.id,
    manage,
    id: created.body.id as number,
    secret: created.body.secret as string,
  };
}
