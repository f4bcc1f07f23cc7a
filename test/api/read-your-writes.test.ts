/**
 * Read your writes (docs/data-api.md "Read your writes"): once `POST /admin/v1/telegrams` has
 * answered, a list from the same server holds the telegram and its conversion, even on a server that
 * started a moment ago and though lists are answered from memory that follows the bus.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { getJson } from '../support/data-api.ts';
import { fixture } from '../support/fixtures.ts';
import { startTestServer } from '../support/server.ts';

const telegrams = [
  '32-35_06_06_100915_VXSE53.xml',
  '32-35_01_03_240613_VXSE53.xml',
  '32-35_01_02_240613_VXSE52.xml',
  '32-35_01_01_100806_VXSE51.xml',
].map((f) => readFileSync(fixture('official', f)));

test('a list right after an acknowledged ingest holds it, on fresh servers, again and again', async () => {
  for (let run = 0; run < 3; run++) {
    const server = await startTestServer({ listen: false });
    try {
      const { account } = await server.createAccount({ admin: true, contracts: ['telegram.earthquake'] });
      const key = await server.createApiKey(account.id, ['admin.telegram.ingest', 'telegram.list']);
      for (const xml of telegrams) {
        const posted = await getJson(server, `/admin/v1/telegrams?key=${key}`, { method: 'POST', body: xml });
        assert.equal(posted.status, 200);
        // Both the XML and its JSON conversion, as the list's two formats show them.
        for (const format of ['raw', 'json']) {
          const listed = await getJson(
            server,
            `/v2/telegram?key=${key}&formatMode=${format}&test=including&limit=1`,
          );
          const newest = listed.body.items[0];
          assert.ok(newest, `run ${run}: the ${format} list is empty right after the ingest`);
          if (format === 'raw') assert.equal(newest.id, posted.body.id);
          // The conversion is stored with the serial after its XML's, in the same transaction.
          else
            assert.ok(newest.serial > posted.body.serial && newest.schema, `run ${run}: conversion listed`);
        }
      }
    } finally {
      await server.close();
    }
  }
});
