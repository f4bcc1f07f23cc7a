/**
 * A contract change whose bus announcement a process missed (its bus connection was down, or being
 * replaced): the process holds live connections of that account all the same. As for a missed
 * revocation or close (docs/realtime.md "Cut off"), it finds them in the store at its next ping tick:
 * the connection narrows, or closes with 4807 when nothing contracted is left.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { removeContract } from '../../src/accounts/contracts.ts';
import { startTestServer } from '../support/server.ts';
import { TestClient } from '../support/realtime.ts';
import { startSocket } from './support.ts';

test('a contract that ended without an announcement closes its connections (4807) at the next tick', async () => {
  const server = await startTestServer({ config: { pingIntervalMs: 300 } });
  try {
    const { account } = await server.createAccount({ contracts: ['telegram.earthquake', 'eew.forecast'] });
    const key = await server.createApiKey(account.id, ['socket.start', 'telegram.get.earthquake']);
    const started = await startSocket(server.url, key, ['telegram.earthquake']);
    assert.equal(started.status, 200);
    const client = new TestClient(started.url!);
    assert.equal((await client.next()).type, 'start');
    // Ended in the store only: this process never hears of it on the bus.
    await removeContract(server.ctx.db, account.id, 'telegram.earthquake');
    const closed = await Promise.race([
      client.closed.then(({ code }) => code),
      new Promise((resolve) => setTimeout(() => resolve('still open after 3 s'), 3000)),
    ]);
    assert.equal(closed, 4807);
  } finally {
    await server.close();
  }
});
