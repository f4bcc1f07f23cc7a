// The address guard's lookups (docs/webhooks.md "Safety"): a name whose DNS never answers, or whose
// system lookup never answers, fails its own attempts within the lookup's limit and holds neither
// another receiver's post nor libuv's thread pool. Real sockets: a DNS server on loopback (UDP) that
// answers some names and drops the queries for others, a receiver on loopback, the real sender.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { once } from 'node:events';
import { closeSync, constants, openSync, rmSync } from 'node:fs';
import { mkdtemp, open } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gunzip, gzipSync } from 'node:zlib';
import { AddressResolver, type SystemLookup } from '../../src/webhooks/address-guard.ts';
import { Sender } from '../../src/webhooks/sender.ts';
import { startReceiver } from './receiver.ts';

const TIMEOUT_MS = 2000;
/** Attempts at once to one host, as the workers bound them, and as many connections. */
const PER_HOST = 16;
/** The lookup's limit: half the attempt's time. */
const LIMIT_MS = TIMEOUT_MS / 2;

interface DnsServer {
  address: string;
  /** The queries received, by name. */
  asked: Map<string, number>;
  close(): Promise<void>;
}

/** The first question's name of a DNS query, and where the question ends. */
function question(query: Buffer): { name: string; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (query[at]! > 0) {
    labels.push(query.toString('latin1', at + 1, at + 1 + query[at]!));
    at += 1 + query[at]!;
  }
  return { name: labels.join('.'), end: at + 5 };
}

/**
 * A DNS server on loopback: A queries for a name of `answers` get its IPv4 address, AAAA queries
 * none; a `dropped` name gets no answer at all; any other is unknown (NXDOMAIN).
 */
async function startDnsServer(
  answers: Record<string, string>,
  dropped: (name: string) => boolean,
): Promise<DnsServer> {
  const asked = new Map<string, number>();
  const socket: Socket = createSocket('udp4');
  socket.on('message', (query, from) => {
    const { name, end } = question(query);
    asked.set(name, (asked.get(name) ?? 0) + 1);
    if (dropped(name)) return;
    const known = name in answers;
    const a = known && query.readUInt16BE(end - 4) === 1;
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(known ? 0x8180 : 0x8183, 2); // an answer, recursion; NOERROR or NXDOMAIN
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(a ? 1 : 0, 6);
    const record = Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 0, 0, 4]);
    const address = Buffer.from(a ? answers[name]!.split('.').map(Number) : []);
    const parts = [header, query.subarray(12, end), ...(a ? [record, address] : [])];
    socket.send(Buffer.concat(parts), from.port, from.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return {
    address: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    asked,
    async close() {
      socket.close();
      await once(socket, 'close');
    },
  };
}

function senderWith(dnsServer: DnsServer, systemLookup: SystemLookup): Sender {
  return new Sender({
    timeoutMs: TIMEOUT_MS,
    maxResponseBytes: 1024,
    maxSocketsPerHost: PER_HOST,
    idleMs: 5000,
    allowPrivate: true,
    nameSources: { dnsServers: [dnsServer.address], systemLookup },
  });
}

const post = (url: string) => ({ url, headers: {}, body: Buffer.from('{}') });

/**
 * System lookups that never answer and, as getaddrinfo does while a resolver does not answer, each
 * hold a thread of libuv's pool meanwhile: opening a FIFO blocks until a writer opens it (`release`).
 */
async function stuckLookups(): Promise<{
  lookup: () => Promise<never>;
  /** The lookups started (none ends). */
  started: () => number;
  release(): void;
}> {
  const dir = await mkdtemp(join(tmpdir(), 'namazu-dns-'));
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  let started = 0;
  return {
    lookup: async () => {
      started++;
      await (await open(fifo, 'r')).close();
      return new Promise<never>(() => {});
    },
    started: () => started,
    release() {
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: no lookup waits on it.
      }
      rmSync(dir, { recursive: true });
    },
  };
}

/** How long a gunzip takes, which runs on libuv's pool as scrypt does (console sign-in). */
async function gunzipMs(): Promise<number> {
  const started = performance.now();
  await promisify(gunzip)(gzipSync('{}'));
  return performance.now() - started;
}

test('names whose DNS never answers fail their attempts within the limit and hold no other post', async () => {
  const dnsServer = await startDnsServer({ 'live.test': '127.0.0.1' }, (name) => name.startsWith('dead'));
  const receiver = await startReceiver();
  const stuck = await stuckLookups();
  // Were the system's lookup asked, it would know `live.test` (the real getaddrinfo of `localhost`),
  // and its resolver would not answer for `dead*.test` either.
  const sender = senderWith(dnsServer, (hostname, family) =>
    hostname.startsWith('dead') ? stuck.lookup() : lookup('localhost', { family, all: true }),
  );
  try {
    // As many attempts as a process makes at once, to eight names whose DNS never answers.
    const deadNames = Array.from({ length: 8 }, (_, k) => `dead${k}.test`);
    const dead = deadNames.flatMap((name) =>
      Array.from({ length: PER_HOST }, () => sender.send(post(`http://${name}:${receiver.port}/hook`))),
    );
    await setTimeout(50);
    const live = await sender.send(post(`http://live.test:${receiver.port}/hook`));
    assert.equal(live.error, null);
    assert.ok(live.durationMs < 300, `the post to another name took ${live.durationMs} ms`);
    assert.equal(receiver.received.length, 1);
    assert.ok((await gunzipMs()) < 300, "libuv's thread pool is free");
    for (const outcome of await Promise.all(dead)) {
      assert.equal(outcome.error, 'connection failed (DNS_TIMEOUT)');
      // Ended by the lookup's limit, before the attempt's own time-out: timers fire late on a busy machine.
      assert.ok(outcome.durationMs < TIMEOUT_MS, `a dead attempt took ${outcome.durationMs} ms`);
    }
    // One resolution of a name at a time (A and AAAA, two tries each), none by the system's lookup.
    for (const name of deadNames)
      assert.ok(dnsServer.asked.get(name)! <= 4, `${name}: ${dnsServer.asked.get(name)}`);
    assert.equal(stuck.started(), 0);
  } finally {
    sender.close();
    stuck.release();
    await receiver.close();
    await dnsServer.close();
  }
});

test("names DNS does not know go to the system's lookup: one per name, two at once, within the limit", async () => {
  const dnsServer = await startDnsServer({}, () => false);
  const receiver = await startReceiver();
  const stuck = await stuckLookups();
  // The system knows `nas.lan` (as /etc/hosts would: the real getaddrinfo of `localhost`); its
  // resolver never answers for `stuck*.lan`.
  const sender = senderWith(dnsServer, (hostname, family) =>
    hostname.startsWith('stuck') ? stuck.lookup() : lookup('localhost', { family, all: true }),
  );
  try {
    const stuckPosts = Array.from({ length: PER_HOST }, () =>
      sender.send(post(`http://stuck.lan:${receiver.port}/hook`)),
    );
    await setTimeout(50);
    const nas = await sender.send(post(`http://nas.lan:${receiver.port}/hook`));
    assert.equal(nas.error, null);
    assert.ok(nas.durationMs < 300, `the post to a LAN name took ${nas.durationMs} ms`);
    for (const outcome of await Promise.all(stuckPosts)) {
      assert.equal(outcome.error, 'connection failed (DNS_TIMEOUT)');
      assert.ok(outcome.durationMs < TIMEOUT_MS, `a stuck attempt took ${outcome.durationMs} ms`);
    }
    assert.equal(stuck.started(), 1, 'the stuck name is looked up once while its lookup runs');
    // More stuck names than places: two hold a thread each, the others wait and then give up.
    const more = ['stuck1.lan', 'stuck2.lan', 'stuck3.lan'].map((host) =>
      sender.send(post(`http://${host}:${receiver.port}/hook`)),
    );
    for (const outcome of await Promise.all(more))
      assert.equal(outcome.error, 'connection failed (DNS_TIMEOUT)');
    assert.equal(stuck.started(), 2);
    assert.ok((await gunzipMs()) < 300, "two of libuv's four threads stay free");
  } finally {
    sender.close();
    stuck.release();
    await receiver.close();
    await dnsServer.close();
  }
});

test('localhost names and IP literals need no lookup; a private answer is refused unless allowed', async () => {
  const dnsServer = await startDnsServer({ 'rebound.test': '10.0.0.7' }, () => false);
  const noLookup: SystemLookup = () => Promise.reject(new Error('no system lookup expected'));
  const lookUp = (resolver: AddressResolver, hostname: string) =>
    new Promise<{ err: NodeJS.ErrnoException | null; addresses: LookupAddress[] }>((resolve) =>
      resolver.lookup(hostname, { all: true }, (err, addresses) =>
        resolve({ err, addresses: addresses as unknown as LookupAddress[] }),
      ),
    );
  const sources = { dnsServers: [dnsServer.address], systemLookup: noLookup };
  const guarded = new AddressResolver({ allowPrivate: false, limitMs: LIMIT_MS, ...sources });
  const allowing = new AddressResolver({ allowPrivate: true, limitMs: LIMIT_MS, ...sources });
  try {
    assert.equal((await lookUp(guarded, 'localhost')).err?.code, 'ADDRESS_REFUSED');
    assert.equal((await lookUp(guarded, 'rebound.test')).err?.code, 'ADDRESS_REFUSED');
    assert.deepEqual((await lookUp(allowing, 'api.localhost')).addresses, [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    assert.deepEqual((await lookUp(allowing, 'rebound.test')).addresses, [
      { address: '10.0.0.7', family: 4 },
    ]);
    assert.deepEqual((await lookUp(allowing, '192.168.1.9')).addresses, [
      { address: '192.168.1.9', family: 4 },
    ]);
    assert.equal(dnsServer.asked.has('localhost'), false);
  } finally {
    guarded.close();
    allowing.close();
    await dnsServer.close();
  }
});
