// A `namazu serve` process killed (SIGKILL) in the middle of a burst of webhook deliveries: every
// telegram still reaches the receiver, each under one webhook-id (a retry after the kill keeps it).
// On PostgreSQL a second process takes the deliveries over once their leases end; on the embedded
// database the same data directory is served again.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createAccount } from '../../src/accounts/accounts.ts';
import { createApiKey } from '../../src/accounts/api-keys.ts';
import { addContract } from '../../src/accounts/contracts.ts';
import { openDb } from '../../src/db/open.ts';
import { loadPepper } from '../../src/security/pepper.ts';
import { createTestDatabase } from '../support/database.ts';
import { fixture } from '../support/fixtures.ts';
import { SECRET, auth, serve, type ServeProcess } from '../support/processes.ts';
import { waitFor } from '../support/wait.ts';
import { startReceiver } from './receiver.ts';

const QUAKE = readFileSync(fixture('official', '32-35_01_03_100514_VXSE53.xml'));
const TOTAL = 40;

async function adminKey(databaseUrl: string | null, dataDir: string): Promise<string> {
  const db = await openDb({ databaseUrl, dataDir, poolSize: 2 });
  try {
    const pepper = await loadPepper(db, SECRET);
    const acc = await createAccount(db, {
      email: `k${Date.now()}@example.test`,
      password: 'password-1',
      isAdmin: true,
    });
    await addContract(db, acc.id, 'telegram.earthquake');
    const scopes = ['admin.telegram.ingest', 'webhook.manage', 'webhook.list', 'telegram.get.earthquake'];
    return (await createApiKey(db, pepper, acc.id, scopes)).key;
  } finally {
    await db.close();
  }
}

test('a process killed mid-burst loses no delivery and sends none under two webhook-ids', async () => {
  const database = await createTestDatabase();
  const { databaseUrl, dataDir } = database;
  // Each answer takes a while, so that the kill finds attempts under way.
  const receiver = await startReceiver((_req, res) => {
    setTimeout(() => res.writeHead(200).end('ok'), 150);
  });
  const env = {
    NAMAZU_SECRET: SECRET,
    NAMAZU_WEBHOOK_ALLOW_PRIVATE: 'true',
    NAMAZU_WEBHOOK_TIMEOUT_MS: '1000',
    NAMAZU_WEBHOOK_RETRY_BASE_MS: '50',
    ...(databaseUrl ? { NAMAZU_DATABASE_URL: databaseUrl, NAMAZU_BUS: 'postgres' } : {}),
  };
  const args = ['--data-dir', dataDir];
  const processes: ServeProcess[] = [];
  try {
    const key = await adminKey(databaseUrl, dataDir);
    const first = await serve(env, { args });
    processes.push(first);
    // On PostgreSQL a second node runs beside it from the start.
    if (databaseUrl) processes.push(await serve(env, { args }));
    const created = await fetch(`${first.url}/v2/webhook`, {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify({ url: receiver.url, classifications: ['telegram.earthquake'] }),
    });
    assert.equal(created.status, 200, await created.clone().text());
    const ids: string[] = [];
    for (let i = 1; i <= TOTAL; i++) {
      const raw = Buffer.concat([QUAKE, Buffer.from(`\n<!-- burst ${i} -->\n`)]);
      const r = await fetch(`${first.url}/admin/v1/telegrams`, {
        method: 'POST',
        headers: auth(key),
        body: raw,
      });
      assert.equal(r.status, 200, await r.clone().text());
      ids.push(((await r.json()) as { id: string }).id);
    }
    await waitFor(() => receiver.received.length >= 5, { timeout: 20_000, message: 'the burst under way' });
    first.child.kill('SIGKILL');
    await first.stop();
    processes.shift();
    // The embedded database: the same data directory served again takes over.
    if (!databaseUrl) processes.push(await serve(env, { args }));
    const byTelegram = new Map<string, Set<string>>();
    await waitFor(
      () => {
        for (const r of receiver.received) {
          const id = (JSON.parse(r.body) as { id: string }).id;
          const set = byTelegram.get(id) ?? new Set<string>();
          byTelegram.set(id, set.add(r.headers['webhook-id']!));
        }
        return ids.every((id) => byTelegram.has(id));
      },
      { timeout: 60_000, message: 'every telegram at the receiver' },
    );
    for (const id of ids) assert.equal(byTelegram.get(id)!.size, 1, `telegram ${id} under one webhook-id`);
    assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, TOTAL);
  } finally {
    for (const p of processes) await p.stop();
    await receiver.close();
    await database.drop();
  }
});
