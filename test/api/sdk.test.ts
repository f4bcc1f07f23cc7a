import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DMDATA } from '@dmdata/sdk-js';
import { startTestServer, type TestServer } from '../support/server.ts';
import { accessToken, allFixtures, ingestFixtures } from '../support/data-api.ts';

const SCOPES = ['contract.list', 'telegram.list', 'telegram.data', 'telegram.get.earthquake'];

/** The official SDK pointed at this server (its services are the production paths under /v2). */
function sdkFor(server: TestServer, credentials: DMDATA.Option['credentials']): DMDATA {
  const base = `${server.url}/v2`;
  return new DMDATA({
    credentials,
    endpoints: {
      contract: `${base}/contract`,
      socket: `${base}/socket`,
      telegram: `${base}/telegram`,
      'telegram/body': `${server.url}/v1`,
      parameter: `${base}/parameter`,
      'gd/earthquake': `${base}/gd/earthquake`,
      'gd/eew': `${base}/gd/eew`,
    },
  });
}

for (const mode of ['an API key', 'an OAuth access token (Bearer)'] as const)
  describe(`official JS SDK (@dmdata/sdk-js) with ${mode}`, () => {
    let server: TestServer;
    let sdk: DMDATA;

    before(async () => {
      server = await startTestServer({ config: { dpopNonce: false } });
      const { account } = await server.createAccount({
        contracts: ['telegram.earthquake', 'telegram.volcano'],
      });
      if (mode === 'an API key') {
        sdk = sdkFor(server, { apikey: await server.createApiKey(account.id, SCOPES) });
      } else {
        const token = await accessToken(server, account.id, SCOPES);
        assert.match(token, /^ATn\./);
        sdk = sdkFor(server, { getAuthorization: async () => `Bearer ${token}` });
      }
      await ingestFixtures(
        server,
        allFixtures().filter(
          (e) => e.classification === 'telegram.earthquake' || e.classification === 'telegram.volcano',
        ),
      );
    });
    after(() => server.close());

    it('contract list', async () => {
      const res = await sdk.contract.list();
      assert.equal(res.status, 200);
      assert.equal(res.data.status, 'ok');
      const valid = res.data.items.filter((i) => i.isValid).map((i) => i.classification);
      assert.deepEqual(valid.sort(), ['telegram.earthquake', 'telegram.volcano']);
    });

    it('telegram list with filters and paging', async () => {
      const res = await sdk.telegram.list({
        type: 'VXSE53',
        xmlReport: 'true',
        limit: 10,
        test: 'including',
      });
      assert.equal(res.data.status, 'ok');
      assert.equal(res.data.items.length, 10);
      for (const item of res.data.items) {
        assert.equal(item.head.type, 'VXSE53');
        assert.equal(item.xmlReport?.control.title, '震源・震度に関する情報');
      }
      const next = await sdk.telegram.list({ type: 'VXSE53', limit: 10, cursorToken: res.data.nextToken });
      assert.ok(next.data.items.every((i) => i.serial < res.data.items.at(-1)!.serial));

      const exact = await sdk.telegram.list({ type: ['VXSE51', 'VFVO50'], limit: 100 });
      const types = new Set(exact.data.items.map((i) => i.head.type));
      assert.deepEqual([...types].sort(), ['VFVO50', 'VXSE51']);

      const polled = await sdk.telegram.list({ cursorToken: res.data.nextPooling });
      assert.deepEqual(polled.data.items, []);
    });

    it('telegram body', async () => {
      const res = await sdk.telegram.list({ type: 'VXSE52', limit: 1 });
      const item = res.data.items[0]!;
      const body = await sdk.telegramBody.get(item.id);
      assert.equal(body.status, 200);
      assert.match(String(body.headers['content-type']), /^application\/xml/);
      assert.match(String(body.data), /<Title>震源に関する情報<\/Title>/);
      assert.match(String(body.data), /^<\?xml[\s\S]*<\/Report>\s*$/);
    });

    it('errors reach the SDK as HTTP errors with the envelope', async () => {
      await assert.rejects(
        sdk.telegram.list({ formatMode: 'xml' as 'raw' }),
        (err: { response?: { status: number; data: { error: { message: string } } } }) =>
          err.response?.status === 400 &&
          err.response.data.error.message ===
            'You have entered a string that is not defined in `formatMode`.',
      );
    });
  });
