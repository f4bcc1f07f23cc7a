// A webhook subscription filtered by a city code (docs/webhooks.md, docs/realtime.md "Filters by
// place and strength"): the early warning for the earthquake area the city lies in reaches it, one
// for another region does not. A real server, a real receiver on loopback.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { startTestServer } from '../support/server.ts';
import { cityAreasInCodeTable } from '../support/station-data.ts';
import { waitFor } from '../support/wait.ts';
import { startReceiver } from './receiver.ts';
import { CONTRACTS, SCOPES } from './worker-support.ts';

const KANAZAWA = '1720100';

test(
  'a subscription to a city receives the early warning of its earthquake area',
  { timeout: 30_000 },
  async () => {
    // 金沢市 lies in 石川県加賀 (391), which the 2024-01-16 能登半島沖 warning warns; JMA's 2024 豊後水道
    // sample warns areas of Shikoku, Kyushu and Chugoku only.
    assert.deepEqual(cityAreasInCodeTable(KANAZAWA), ['391']);
    const ishikawaXml = readFileSync(fixture('real', '20240116184225_02245216_VXSE43.xml'), 'utf8');
    assert.match(ishikawaXml, /<Areas codeType="地震情報／細分区域">.*<Code>391<\/Code>/);
    const elsewhereXml = readFileSync(fixture('official', '37_01_01_240613_VXSE43.xml'), 'utf8');
    for (const code of ['391', '17', KANAZAWA])
      assert.ok(!elsewhereXml.includes(`<Code>${code}</Code>`), code);

    const receiver = await startReceiver();
    const server = await startTestServer({
      listen: false,
      config: { webhookAllowPrivate: true, webhookRetryBaseMs: 50, webhookTimeoutMs: 2000 },
    });
    try {
      const { account } = await server.createAccount({ contracts: CONTRACTS });
      const key = await server.createApiKey(account.id, SCOPES);
      const headers = {
        authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
        'content-type': 'application/json',
      };
      const created = await getJson(server, '/v2/webhook', {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: receiver.url, classifications: ['eew.warning'], areas: [KANAZAWA] }),
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const ingest = async (xml: string) => {
        const outcome = await ingestTelegram(server.ctx, Buffer.from(xml), { receivedTime: Date.now() });
        assert.ok(outcome.ok);
        return outcome.stored.id;
      };
      await ingest(elsewhereXml);
      const ishikawa = await ingest(ishikawaXml);
      const [got] = await waitFor(() => (receiver.received.length > 0 ? receiver.received : null));
      assert.equal((JSON.parse(got!.body) as { id: string }).id, ishikawa);
      // The queuer matched the earlier telegram first: the subscription has no delivery of it.
      const listed = await getJson(server, `/v2/webhook/${created.body.id}`, { headers });
      assert.equal((listed.body.deliveries as unknown[]).length, 1, JSON.stringify(listed.body.deliveries));
    } finally {
      await server.close();
      await receiver.close();
    }
  },
);
