/**
 * Webhook delivery driven by a test: a real server with an account that subscribes through the API,
 * and delivery workers with limits of their own beside a server whose delivery is off
 * (`webhookDelivery: false`), to which the test hands deliveries as the queuer would; on the real
 * database, to real receivers on loopback.
 */
import type { Config } from '../../src/config.ts';
import type { Db } from '../../src/db/types.ts';
import { SecretBox } from '../../src/security/sealed.ts';
import { queueDeliveries, type Recorded } from '../../src/webhooks/deliveries.ts';
import { PayloadBuilder } from '../../src/webhooks/payload.ts';
import { Sender } from '../../src/webhooks/sender.ts';
import { MAX_RESPONSE_BYTES, WEBHOOK_SECRET_PURPOSE } from '../../src/webhooks/service.ts';
import { DeliveryWorker, type WorkerOptions } from '../../src/webhooks/worker.ts';
import { getJson } from '../support/data-api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** What a webhook test's account holds: the contracts and the API key's scopes. */
export const CONTRACTS = ['telegram.earthquake', 'eew.forecast', 'eew.warning'];
export const SCOPES = [
  'webhook.manage',
  'webhook.list',
  'telegram.get.earthquake',
  'eew.get.forecast',
  'eew.get.warning',
];

/** A server that may post to loopback, and `subscribe`, which creates a subscription through the API. */
export async function subscribingServer(config: Partial<Config>): Promise<{
  server: TestServer;
  subscribe(url: string, classifications: string[]): Promise<number>;
}> {
  const server = await startTestServer({ listen: false, config: { webhookAllowPrivate: true, ...config } });
  const { account } = await server.createAccount({ contracts: CONTRACTS });
  const key = await server.createApiKey(account.id, SCOPES);
  const headers = {
    authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    'content-type': 'application/json',
  };
  return {
    server,
    async subscribe(url, classifications) {
      const created = await getJson(server, '/v2/webhook', {
        method: 'POST',
        headers,
        body: JSON.stringify({ url, classifications }),
      });
      if (created.status !== 200) throw new Error(JSON.stringify(created.body));
      return created.body.id as number;
    },
  };
}

/** Queues one telegram's delivery to a subscription, unclaimed (due now); returns its id. */
export async function queueOne(
  db: Db,
  subscriptionId: number,
  serial: number,
  priority: number,
): Promise<number> {
  await queueDeliveries(db, [{ subscriptionId, serial, priority, claim: false }], 0);
  const [row] = await db.query<{ id: number }>(
    'SELECT id FROM webhook_deliveries WHERE subscription_id = $1 AND serial = $2',
    [subscriptionId, serial],
  );
  return row!.id;
}

export interface TestWorker {
  worker: DeliveryWorker;
  /** Every outcome recorded, in order. */
  outcomes: { id: number; recorded: Recorded }[];
  errors: unknown[];
  stop(): Promise<void>;
}

/** Workers of their own on `db` (a process's), with the server's sealed secrets; retries wait long. */
export function testWorker(
  server: TestServer,
  db: Db,
  options: Omit<WorkerOptions, 'policy' | 'hold'> & { hold?: number },
): TestWorker {
  const sender = new Sender({
    timeoutMs: options.timeoutMs,
    maxResponseBytes: MAX_RESPONSE_BYTES,
    maxSocketsPerHost: options.perHost,
    idleMs: 30_000,
    allowPrivate: true,
  });
  const outcomes: TestWorker['outcomes'] = [];
  const errors: unknown[] = [];
  const worker = new DeliveryWorker(
    db,
    new SecretBox(server.ctx.pepper, WEBHOOK_SECRET_PURPOSE),
    sender,
    new PayloadBuilder(db, 'test-node'),
    {
      hold: 16,
      ...options,
      // A failed attempt is not retried within a test: every post seen is a first attempt or a takeover.
      policy: { baseMs: 600_000, capMs: 600_000, windowMs: 86_400_000, disableAfterMs: 5 * 86_400_000 },
    },
    {
      attempted: (d, _outcome, recorded) => outcomes.push({ id: d.id, recorded }),
      inFlight: () => {},
      error: (err) => errors.push(err),
    },
  );
  return {
    worker,
    outcomes,
    errors,
    async stop() {
      await worker.stop();
      sender.close();
    },
  };
}
