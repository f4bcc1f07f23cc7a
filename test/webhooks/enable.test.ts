// A webhook disabled by days of failed deliveries, or by its owner, is enabled again by its owner
// (docs/webhooks.md "Subscriptions"): the same secret, the telegrams committed from then on, the failed
// deliveries redeliverable by hand under their webhook-id; only with `webhook.manage`, only one's own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { ingestVariant } from '../support/ingest-variant.ts';
import { startTestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { apiKey, ownedWebhook } from './owned-webhook.ts';
import { startReceiver } from './receiver.ts';

const QUAKE = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'));

test('a webhook disabled by its failing streak is enabled again: same secret, new telegrams, failed ones redeliverable', async () => {
  const receiver = await startReceiver({ status: 500 });
  const server = await startTestServer({
    listen: false,
    config: { webhookAllowPrivate: true, webhookRetryBaseMs: 3_600_000 },
  });
  try {
    const { accountId, manage, id, secret } = await ownedWebhook(server, receiver.url);
    const listOnly = await apiKey(server, accountId, ['webhook.list']);
    const read = async () => (await getJson(server, `/v2/webhook/${id}`, { headers: manage })).body;
    const enable = (headers: Record<string, string>, which: number | string = id) =>
      getJson(server, `/v2/webhook/${which}/enable`, { method: 'POST', headers });

    // Enabling an active webhook changes nothing.
    const already = await enable(manage);
    assert.equal(already.status, 200, JSON.stringify(already.body));
    assert.equal(already.body.state, 'active');

    // Five days and more of failures (their time set in the table), then one more: disabled.
    await server.ctx.db.query(
      `UPDATE webhook_subscriptions SET failing_since = now() - interval '6 days',
         last_failed_at = now() - interval '1 minute' WHERE id = $1`,
      [id],
    );
    const failedSerial = await ingestVariant(server, QUAKE);
    await waitFor(async () => (await read()).state === 'disabled', { message: 'disabled by the failure' });
    const disabled = await read();
    assert.match(disabled.disabledReason, /^every delivery failed since /);
    const failed = disabled.deliveries.find((d: { telegramId: string | null }) => d.telegramId !== null);
    assert.equal(failed.state, 'failed');
    assert.equal(receiver.received.length, 1);
    const failedWebhookId = receiver.received[0]!.headers['webhook-id'];

    // A telegram committed while it is disabled is not delivered, then or after.
    const whileDisabled = await ingestVariant(server, QUAKE);
    assert.ok(whileDisabled > failedSerial);

    // Only with webhook.manage, only one's own, only a webhook that exists.
    assert.equal((await enable(listOnly)).status, 403);
    const other = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const stranger = await apiKey(server, other.account.id, ['webhook.manage']);
    const notTheirs = await enable(stranger);
    assert.equal(notTheirs.status, 404);
    assert.equal(notTheirs.body.error.message, 'Webhook ID not found.');
    assert.equal((await enable(manage, 'abc')).status, 404);
    assert.equal((await enable(manage, 999_999)).status, 404);
    assert.equal((await read()).state, 'disabled', 'nothing changed by the refusals');

    // A test event still goes to a disabled webhook: whether the receiver answers again, before enabling.
    receiver.answer({ status: 204 });
    const tested = await getJson(server, `/v2/webhook/${id}/test`, { method: 'POST', headers: manage });
    assert.equal(tested.body.delivery.delivered, true, JSON.stringify(tested.body));
    assert.equal((await read()).state, 'disabled', 'a test event enables nothing');
    const enabled = await enable(manage);
    assert.equal(enabled.status, 200, JSON.stringify(enabled.body));
    assert.equal(enabled.body.state, 'active');
    assert.equal(enabled.body.disabledReason, null);
    assert.equal(enabled.body.failingSince, null);
    assert.equal(enabled.body.secret, undefined, 'the secret is not shown again');

    // The next telegram arrives, signed with the secret given at creation.
    const afterSerial = await ingestVariant(server, QUAKE);
    await waitFor(() => receiver.accepted.length === 2, { message: 'the next telegram delivered' });
    const arrived = receiver.accepted[1]!;
    const payload = new Webhook(secret).verify(arrived.body, arrived.headers) as { body?: unknown };
    assert.ok(payload);
    const [queued] = await server.ctx.db.query<{ serial: number }>(
      'SELECT serial FROM webhook_deliveries WHERE message_id = $1',
      [arrived.headers['webhook-id']!],
    );
    assert.equal(Number(queued!.serial), afterSerial);

    // The failed delivery is redelivered by hand, under its webhook-id.
    const again = await getJson(server, `/v2/webhook/${id}/deliveries/${failed.id}/redeliver`, {
      method: 'POST',
      headers: manage,
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    await waitFor(() => receiver.accepted.length === 3, { message: 'the failed delivery redelivered' });
    assert.equal(receiver.accepted[2]!.headers['webhook-id'], failedWebhookId);

    // Nothing of the telegram committed while disabled was queued or sent.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ofIt = await server.ctx.db.query(
      'SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1 AND serial = $2',
      [id, whileDisabled],
    );
    assert.equal(ofIt.length, 0);
    assert.equal(receiver.received.length, 4);
  } finally {
    await server.close();
    await receiver.close();
  }
});

test('its owner disables a webhook: nothing is queued or sent until it is enabled again; its pending deliveries fail, and are recovered once it is', async () => {
  const receiver = await startReceiver({ status: 500 });
  const server = await startTestServer({
    listen: false,
    config: { webhookAllowPrivate: true, webhookRetryBaseMs: 3_600_000 },
  });
  try {
    const { accountId, manage, id } = await ownedWebhook(server, receiver.url);
    const change = (
      what: 'enable' | 'disable',
      headers: Record<string, string> = manage,
      which: number | string = id,
    ) => getJson(server, `/v2/webhook/${which}/${what}`, { method: 'POST', headers });
    const stateOf = async (serial: number) =>
      (
        await server.ctx.db.query<{ state: string }>(
          'SELECT state FROM webhook_deliveries WHERE subscription_id = $1 AND serial = $2',
          [id, serial],
        )
      )[0]?.state;

    // A delivery whose first attempt failed waits an hour for its next.
    const pending = await ingestVariant(server, QUAKE);
    await waitFor(() => receiver.received.length === 1, { message: 'the first attempt' });
    await waitFor(
      async () =>
        (
          await server.ctx.db.query(
            'SELECT 1 FROM webhook_deliveries WHERE subscription_id = $1 AND attempts = 1 AND lease_until IS NULL',
            [id],
          )
        ).length === 1,
      { message: 'its failure recorded' },
    );
    assert.equal(await stateOf(pending), 'pending');

    // Only with webhook.manage, only one's own.
    const listOnly = await apiKey(server, accountId, ['webhook.list']);
    assert.equal((await change('disable', listOnly)).status, 403);
    const other = await server.createAccount({ contracts: ['telegram.earthquake'] });
    const stranger = await apiKey(server, other.account.id, ['webhook.manage']);
    assert.equal((await change('disable', stranger)).status, 404);
    assert.equal((await change('disable', manage, 'x')).status, 404);

    const disabled = await change('disable');
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    assert.equal(disabled.body.state, 'disabled');
    assert.equal(disabled.body.disabledReason, 'disabled by its owner');
    assert.equal(await stateOf(pending), 'failed', 'its pending delivery fails with it');
    const again = await change('disable');
    assert.equal(again.status, 200);
    assert.equal(again.body.state, 'disabled', 'a disabled one is left as it is');

    // A telegram received while it is disabled is neither queued nor sent.
    receiver.answer({ status: 204 });
    const meanwhile = await ingestVariant(server, QUAKE);

    const enabled = await change('enable');
    assert.equal(enabled.body.state, 'active');
    assert.equal(enabled.body.disabledReason, null);
    const next = await ingestVariant(server, QUAKE);
    await waitFor(() => receiver.accepted.length === 1, { message: 'the next telegram' });
    assert.equal(receiver.accepted[0]!.headers['webhook-id'], `msg_${id}_${next}`);
    const recovered = await getJson(server, `/v2/webhook/${id}/recover?datetime=2020-01-01T00:00:00Z~`, {
      method: 'POST',
      headers: manage,
    });
    assert.equal(recovered.body.recovered, 1);
    await waitFor(() => receiver.accepted.length === 2, { message: 'the failed one recovered' });
    assert.equal(receiver.accepted[1]!.headers['webhook-id'], `msg_${id}_${pending}`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(await stateOf(meanwhile), undefined, 'never queued');
    assert.equal(receiver.received.length, 3);
  } finally {
    await server.close();
    await receiver.close();
  }
});
