/**
 * What the webhook API tests start from: a receiver on loopback, a server allowed to post to it, an
 * account with an earthquake contract (and `more` contracts), and the JSON request headers of its API
 * key holding the webhook scopes and `telegram.get.earthquake` (and `more` scopes).
 */
import { startTestServer } from '../support/server.ts';
import { startReceiver, type Behaviour } from './receiver.ts';

export async function keyedWebhookServer(
  answer: Behaviour,
  more: { contracts?: string[]; scopes?: string[] } = {},
) {
  const receiver = await startReceiver(answer);
  const server = await startTestServer({ listen: false, config: { webhookAllowPrivate: true } });
  const contracts = ['telegram.earthquake', ...(more.contracts ?? [])];
  const { account } = await server.createAccount({ contracts });
  const scopes = ['webhook.manage', 'webhook.list', 'telegram.get.earthquake', ...(more.scopes ?? [])];
  const key = await server.createApiKey(account.id, scopes);
  const headers = {
    authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    'content-type': 'application/json',
  };
  const close = async () => {
    await server.close();
    await receiver.close();
  };
  return { receiver, server, headers, close };
}
