/**
 * POST /admin/v1/scenarios (docs/sources.md): administrators only, a validated JSON body
 * with documented errors that changes nothing, refusal of asReal beside a live source, and a started
 * scenario that reaches /v2/gd/earthquake.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../src/db/types.ts';
import { getJson } from '../support/data-api.ts';
import { createTestDatabase } from '../support/database.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { waitFor } from '../support/wait.ts';

const BODY = { type: 'earthquake', latitude: 35.7, longitude: 139.7, depth: 40, magnitude: 7.1 };

describe('POST /admin/v1/scenarios', () => {
  let server: TestServer;
  let adminKey: string;
  let userKey: string;
  let gdKey: string;

  before(async () => {
    server = await startTestServer({ listen: false });
    const admin = await server.createAccount({ admin: true, contracts: ['telegram.earthquake'] });
    adminKey = await server.createApiKey(admin.account.id, ['admin.telegram.ingest']);
    gdKey = await server.createApiKey(admin.account.id, ['gd.earthquake']);
    const user = await server.createAccount();
    userKey = await server.createApiKey(user.account.id, ['admin.telegram.ingest']);
  });
  after(() => server.close());

  const post = (body: unknown, key = adminKey, target = server) =>
    getJson(target, `/admin/v1/scenarios?key=${key}`, {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
    });
  const count = async () =>
    (await server.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM telegrams'))[0]!.n;

  it('refuses a non-administrator and bad bodies with documented messages, storing nothing', async () => {
    const before = await count();
    const denied = await post(BODY, userKey);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error.message, 'Insufficient scope for `admin.telegram.ingest`.');
    const cases: [unknown, string][] = [
      [{ ...BODY, latitude: 91 }, 'The `latitude` must be a number from 20 to 50.'],
      [{ ...BODY, magnitude: 'big' }, 'The `magnitude` must be a number from 3 to 9.5.'],
      [{ ...BODY, type: 'tsunami' }, 'The `type` must be `earthquake`.'],
      [{ ...BODY, speed: 0 }, 'The `speed` must be a number from 0.01 to 1000.'],
    ];
    for (const [body, message] of cases) {
      const res = await post(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.message, message);
    }
    const missing = await post({ type: 'earthquake' });
    assert.equal(missing.status, 400);
    assert.equal(await count(), before);
  });

  it('asReal is refused while a live source is enabled', async () => {
    const withSource = await startTestServer({ listen: false, config: { sources: ['jma-feed'] } });
    try {
      const admin = await withSource.createAccount({ admin: true });
      const key = await withSource.createApiKey(admin.account.id, ['admin.telegram.ingest']);
      const res = await post({ ...BODY, asReal: true }, key, withSource);
      assert.equal(res.status, 409);
      assert.equal(res.body.error.message, 'A live source is enabled: `asReal` is refused.');
    } finally {
      await withSource.close();
    }
  });

  it('starts a scenario: 202 with its EventID, then the event in /v2/gd/earthquake', async () => {
    const res = await post({ ...BODY, asReal: true, speed: 1000 });
    assert.equal(res.status, 202);
    assert.match(res.body.eventId, /^\d{14}$/);
    assert.equal(res.body.test, false);
    assert.ok(res.body.telegrams.some((t: { type: string }) => t.type === 'VXSE53'));
    const event = await waitFor(
      async () => {
        const list = await getJson(server, `/v2/gd/earthquake?key=${gdKey}`);
        return (list.body.items as { eventId: string; maxInt: string | null }[]).find(
          (e) => e.eventId === res.body.eventId && e.maxInt !== null,
        );
      },
      { timeout: 20_000, message: 'the scenario event' },
    );
    assert.equal(event.eventId, res.body.eventId);
    // Every telegram it issued is counted as the scenario's, as every other ingest is by its source.
    const scenarioCounted = async () =>
      (await server.ctx.metrics.telegramsIngested.get()).values
        .filter((v) => v.labels.source === 'scenario')
        .reduce((sum, v) => sum + v.value, 0);
    await waitFor(async () => (await scenarioCounted()) === res.body.telegrams.length, {
      timeout: 20_000,
      message: 'every telegram of the scenario counted',
    });
  });

  it('a server stopped while a scenario telegram is being stored stores it whole before its database closes', async () => {
    const database = await createTestDatabase();
    const stopped = await startTestServer({ database, listen: false });
    const xmlTypes = async (db: Db) =>
      (
        await db.query<{ type: string }>(
          "SELECT type FROM telegrams WHERE format = 'xml' AND test ORDER BY serial",
        )
      ).map((r) => r.type);
    // The VXSE53 (some 600 KiB) is prepared in a child process: its storing has begun once it is handed over.
    const { live } = stopped.ctx.preparePools;
    const prepare = live.prepare.bind(live);
    let lastBegan = () => {};
    const lastStoring = new Promise<void>((resolve) => (lastBegan = resolve));
    live.prepare = (raw, ...rest) => {
      if (raw.includes('震源・震度に関する情報')) lastBegan();
      return prepare(raw, ...rest);
    };
    let issued = 0;
    try {
      const admin = await stopped.createAccount({ admin: true });
      const key = await stopped.createApiKey(admin.account.id, ['admin.telegram.ingest']);
      const res = await post({ ...BODY, speed: 1000 }, key, stopped);
      assert.equal(res.status, 202);
      // The last one, the VXSE53 of an M7.1 under Tokyo, takes a while to store.
      assert.equal((res.body.telegrams.at(-1) as { type: string }).type, 'VXSE53');
      issued = res.body.telegrams.length;
      await lastStoring;
      assert.ok(!(await xmlTypes(stopped.ctx.db)).includes('VXSE53'), 'not stored yet');
      await stopped.close();
    } finally {
      await stopped.close();
    }
    const reopened = await startTestServer({ database, listen: false });
    try {
      const types = await xmlTypes(reopened.ctx.db);
      assert.equal(types.length, issued, types.join());
      assert.equal(types.at(-1), 'VXSE53');
    } finally {
      await reopened.close();
      await database.drop();
    }
  });
});
