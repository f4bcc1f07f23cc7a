import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { ContractList, ErrorResponse, TelegramListV1, TelegramListV2 } from '../../src/api/schemas.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { allFixtures, getJson, ingestFixtures } from '../support/data-api.ts';

/**
 * Responses match the schemas the OpenAPI document publishes, the pre-serialised /v2/telegram
 * text included (it bypasses Fastify's serializer, so nothing else checks it).
 */
describe('responses match their published schemas', () => {
  let server: TestServer;
  let key: string;
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validator = (schema: TSchema): ValidateFunction => ajv.compile(schema);
  const assertMatches = (validate: ValidateFunction, body: unknown) =>
    assert.ok(validate(body), JSON.stringify(validate.errors));

  before(async () => {
    server = await startTestServer();
    const { account } = await server.createAccount({
      contracts: ['telegram.earthquake', 'telegram.weather', 'telegram.volcano'],
    });
    key = await server.createApiKey(account.id, ['telegram.list', 'contract.list']);
    await ingestFixtures(server, allFixtures().slice(0, 40));
  });
  after(() => server.close());

  it('GET /v2/telegram, with and without xmlReport, and a following page', async () => {
    const validate = validator(TelegramListV2);
    for (const query of ['limit=5', 'limit=5&xmlReport=true', 'limit=5&test=including']) {
      const r = await getJson(server, `/v2/telegram?key=${key}&${query}`);
      assert.equal(r.status, 200);
      assert.ok(r.body.items.length > 0, query);
      assertMatches(validate, r.body);
      if (r.body.nextToken) {
        const next = await getJson(server, `/v2/telegram?key=${key}&cursorToken=${r.body.nextToken}`);
        assertMatches(validate, next.body);
      }
    }
  });

  it('GET /telegram/v1/list', async () => {
    const r = await getJson(server, `/telegram/v1/list?key=${key}&xml=true&limit=10`);
    assert.equal(r.status, 200);
    assertMatches(validator(TelegramListV1), r.body);
  });

  it('GET /v2/contract', async () => {
    const r = await getJson(server, `/v2/contract?key=${key}`);
    assert.equal(r.status, 200);
    assertMatches(validator(ContractList), r.body);
  });

  it('errors are the envelope', async () => {
    const validate = validator(ErrorResponse);
    for (const path of [
      '/v2/telegram',
      `/v2/telegram?key=${key}&limit=0`,
      `/v2/telegram?key=${key}&formatMode=x`,
    ]) {
      const r = await getJson(server, path);
      assert.ok(r.status === 400 || r.status === 401, path);
      assertMatches(validate, r.body);
    }
  });
});
