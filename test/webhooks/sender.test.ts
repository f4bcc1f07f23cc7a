// The sender's connections: kept alive per host, and an attempt to a host it has not posted to yet
// is not held behind idle connections to other hosts (receivers on other loopback addresses).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { MAX_ATTEMPTS_IN_FLIGHT } from '../../src/webhooks/service.ts';
import { Sender } from '../../src/webhooks/sender.ts';

test('idle connections to many hosts do not hold an attempt to another host', async () => {
  // More hosts than the attempts a process makes at once: each left with an idle connection.
  const hosts = MAX_ATTEMPTS_IN_FLIGHT / 16 + 2;
  const servers: Server[] = [];
  const sender = new Sender({
    timeoutMs: 3000,
    maxResponseBytes: 1024,
    maxSocketsPerHost: 16,
    idleMs: 30_000,
    allowPrivate: true,
  });
  try {
    let port = 0;
    for (let k = 1; k <= hosts; k++) {
      const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
      server.listen(port, `127.0.0.${k}`);
      await once(server, 'listening');
      port = (server.address() as AddressInfo).port;
      servers.push(server);
    }
    for (let k = 1; k <= hosts; k++) {
      // Sixteen at once to each host: sixteen connections kept idle there after.
      const outcomes = await Promise.all(
        Array.from({ length: 16 }, () =>
          sender.send({ url: `http://127.0.0.${k}:${port}/hook`, headers: {}, body: Buffer.from('{}') }),
        ),
      );
      for (const outcome of outcomes) assert.equal(outcome.error, null, `host ${k}`);
    }
  } finally {
    sender.close();
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
  }
});
