/**
 * What the webhook API tests start from: a receiver on loopback, a server allowed to post to it, an
 * account with an earthquake contract, and the JSON request headers of its API key holding the
 * webhook scopes and `telegram.get.earthquake`.
 */
import { startTestServer } from '../support/server.ts';
import { startReceiver, type Behaviour } from './receiver.ts';

export async function keyedWebhookServer(answer: Behaviour) {
  const receiver = await startReceiver(answer);
  const server = await startTestServer({ listen: false, config: { webhookAllowPrivate: true } });
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const key = await server.createApiKey(account.id, [
    'webhook.manage',
    'webhook.list',
    'telegram.get.earthquake',
  ]);
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
