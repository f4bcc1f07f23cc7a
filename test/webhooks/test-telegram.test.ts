// A webhook tested with a stored telegram (docs/webhooks.md "Testing"): the receiver gets what that
// telegram's delivery posts, marked as a test — the `data` message inside a `webhook.test` event, a
// ready-made post marked 【試験】 and never urgent — signed, recorded as a test event; a telegram of
// another classification, of a lapsed contract or unknown is refused, and the key needs its class scope.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';
import { removeContract } from '../../src/accounts/contracts.ts';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { decodeEncodedWords } from './posts-support.ts';
import { startReceiver } from './receiver.ts';

// A real 震源・震度に関する情報 (通常) with its conversion, and a real 緊急地震速報（警報） (通常).
const QUAKE = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'));
const WARNING = readFileSync(fixture('official', '37_01_01_240613_VXSE43.xml'));

async function apiKey(server: TestServer, accountId: number, scopes: string[]) {
  const key = await server.createApiKey(accountId, scopes);
  return { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}` };
}

async function stored(server: TestServer, xml: Buffer): Promise<{ id: string; serial: number }> {
  const out = await ingestTelegram(server.ctx, xml, { receivedTime: Date.now() });
  assert.ok(out.ok, JSON.stringify(out));
  return out.stored;
}

test('a test carrying a stored telegram posts what its delivery posts, marked as a test, in each format', async () => {
  const receiver = await startReceiver({ status: 204 });
  const server = await startTestServer({ listen: false, config: { webhookAllowPrivate: true } });
  try {
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake', 'eew.warning'] });
    const manage = await apiKey(server, account.id, [
      'webhook.manage',
      'telegram.get.earthquake',
      'eew.get.warning',
    ]);
    const make = async (format: string, classifications: string[], formatMode: 'raw' | 'json') => {
      const created = await getJson(server, '/v2/webhook', {
        method: 'POST',
        headers: { ...manage, 'content-type': 'application/json' },
        body: JSON.stringify({
          url: `${receiver.url}/${format}`,
          classifications,
          format,
          formatMode,
        }),
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      return { id: created.body.id as number, secret: created.body.secret as string };
    };
    // The JSON mode is delivered the conversions, the raw mode the XML telegrams.
    const data = await make('namazu', ['telegram.earthquake', 'eew.warning'], 'json');
    const discord = await make('discord', ['telegram.earthquake', 'eew.warning'], 'raw');
    const ntfy = await make('ntfy', ['eew.warning'], 'raw');

    // Stored now: each is delivered to its webhooks, as any telegram; the tests come after.
    const quake = await stored(server, QUAKE);
    const warning = await stored(server, WARNING);
    const conversionOf = async (id: string) =>
      (
        await server.ctx.db.query<{ serial: number; id: string }>(
          'SELECT serial, id FROM telegrams WHERE original_id = $1',
          [id],
        )
      )[0]!;
    const quakeJson = await conversionOf(quake.id);
    const warningJson = await conversionOf(warning.id);
    await waitFor(() => receiver.accepted.length === 5, { message: 'the five deliveries' });
    const deliveredTo = (id: number, serial: number) => {
      const found = receiver.accepted.find((r) => r.headers['webhook-id'] === `msg_${id}_${serial}`);
      assert.ok(
        found,
        `telegram ${serial} delivered to webhook ${id}: ${receiver.accepted.map((r) => r.headers['webhook-id']).join(' ')}`,
      );
      return found;
    };
    const testWith = async (id: number, telegramId: string, headers = manage) => {
      const heard = receiver.received.length;
      const tested = await getJson(server, `/v2/webhook/${id}/test?telegramId=${telegramId}`, {
        method: 'POST',
        headers,
      });
      return { tested, arrived: receiver.received.slice(heard) };
    };

    // `namazu`: a `webhook.test` event holding the telegram's `data` message, as its delivery posted it:
    // in the JSON mode the conversion's, though the XML telegram's id was given.
    const realData = JSON.parse(deliveredTo(data.id, Number(quakeJson.serial)).body);
    const quakeTest = await testWith(data.id, quake.id);
    assert.equal(quakeTest.tested.status, 200, JSON.stringify(quakeTest.tested.body));
    assert.equal(quakeTest.tested.body.delivery.delivered, true);
    assert.equal(quakeTest.arrived.length, 1);
    const arrived = quakeTest.arrived[0]!;
    const event = new Webhook(data.secret).verify(arrived.body, arrived.headers) as {
      type: string;
      webhook: number;
      telegram: Record<string, unknown>;
    };
    assert.equal(event.type, 'webhook.test');
    assert.equal(event.webhook, data.id);
    assert.match(arrived.headers['webhook-id']!, /^msg_test_/);
    assert.equal(event.telegram.type, 'data');
    assert.equal(event.telegram.id, quakeJson.id);
    assert.equal(event.telegram.format, 'json');
    assert.deepEqual(event.telegram.head, realData.head);
    assert.deepEqual(event.telegram.body, realData.body);

    // `discord`: the early warning's post, marked 【試験】 where the delivery's was not.
    const postOf = (body: string) =>
      JSON.parse(body) as { content: string; embeds: { title: string; color: number }[] };
    // The raw mode's post of the XML telegram, though the conversion's id was given.
    const real = postOf(deliveredTo(discord.id, warning.serial).body);
    const warningTest = await testWith(discord.id, warningJson.id);
    assert.equal(warningTest.tested.body.delivery.delivered, true);
    const marked = postOf(warningTest.arrived[0]!.body);
    assert.ok(!real.content.includes('【試験】'));
    assert.equal(marked.content, `【試験】${real.content}`);
    assert.equal(marked.embeds[0]!.title, `【試験】${real.embeds[0]!.title}`);
    assert.notEqual(marked.embeds[0]!.color, real.embeds[0]!.color, 'grey, as a test');

    // `ntfy`: urgent when delivered, never urgent as a test.
    assert.equal(deliveredTo(ntfy.id, warning.serial).headers['priority'], 'urgent');
    const ntfyTest = await testWith(ntfy.id, warning.id);
    assert.equal(ntfyTest.arrived[0]!.headers['priority'], 'default');
    assert.match(decodeEncodedWords(ntfyTest.arrived[0]!.headers['title']!), /^【試験】緊急地震速報（警報）/);

    // Recorded as test events, not as deliveries of the telegram (nothing to redeliver).
    const [tests] = await server.ctx.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE serial IS NULL',
    );
    assert.equal(tests!.n, 3);

    // Refused, a 400 naming the field, nothing sent: a telegram of a classification the webhook does
    // not receive, an unknown or malformed id, a repeated one, one whose contract ended; without the
    // class scope, a 403.
    const heard = receiver.received.length;
    const message =
      'The `telegramId` names no stored telegram of a classification this webhook receives and the account has a contract for.';
    const noEew = await apiKey(server, account.id, ['webhook.manage']);
    assert.equal((await testWith(ntfy.id, warning.id, noEew)).tested.status, 403);
    await removeContract(server.ctx.db, account.id, 'eew.warning');
    for (const [id, telegramId] of [
      [ntfy.id, quake.id],
      [data.id, 'f'.repeat(96)],
      [data.id, 'not-an-id'],
      [data.id, `${quake.id}&telegramId=${quake.id}`],
      [discord.id, warning.id],
    ] as const) {
      const refused = await testWith(id, telegramId);
      assert.equal(refused.tested.status, 400, telegramId);
      assert.equal(refused.tested.body.error.message, message);
    }
    assert.equal(receiver.received.length, heard, 'nothing sent by the refusals');
  } finally {
    await server.close();
    await receiver.close();
  }
});
