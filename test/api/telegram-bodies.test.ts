import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { ingestTelegram } from '../../src/telegrams/ingest.ts';
import { testFetch } from '../support/fetch.ts';
import { fixture } from '../support/fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let scriptId: string;
before(async () => {
  server = await startTestServer({ listen: false });
  // A telegram source slips an XHTML script into an otherwise valid earthquake telegram.
  const xml = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'), 'utf8').replace(
    '</Report>',
    '<x:script xmlns:x="http://www.w3.org/1999/xhtml">fetch("/account")</x:script></Report>',
  );
  const outcome = await ingestTelegram(server.ctx, Buffer.from(xml), { receivedTime: Date.now() });
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.reason);
  assert.equal(outcome.stored.classification, 'telegram.earthquake');
  scriptId = outcome.stored.id;
});
after(() => server.close());

const dataScopes = ['telegram.data', 'telegram.get.earthquake', 'telegram.get.volcano'];

test('a telegram carrying a script is served with nosniff and a CSP that forbids script', async () => {
  const { account } = await server.createAccount({ contracts: ['telegram.earthquake'] });
  const key = await server.createApiKey(account.id, dataScopes);
  const res = await testFetch(`${server.url}/v1/${scriptId}?key=${key}`);
  assert.equal(res.status, 200);
  assert.match(await res.text(), /x:script/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
  // Refusals on that host carry them too.
  const refused = await testFetch(`${server.url}/v1/${'0'.repeat(96)}?key=${key}`);
  assert.equal(refused.status, 404);
  assert.equal(refused.headers.get('x-content-type-options'), 'nosniff');
});

test('an account contracted only for volcano cannot read an earthquake body by id', async () => {
  const { account } = await server.createAccount({ contracts: ['telegram.volcano'] });
  const key = await server.createApiKey(account.id, dataScopes);
  const res = await testFetch(`${server.url}/v1/${scriptId}?key=${key}`);
  assert.equal(res.status, 404);
  assert.equal(await res.text(), 'Not found.');
});
