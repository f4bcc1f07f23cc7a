/**
 * The client address of a request, for the whole app: Fastify's `request.ip` (its `trustProxy`
 * setting, read by @fastify/proxy-addr) and the raw upgrade of a WebSocket, which Fastify does not
 * see, follow this one rule. Behind `hops` trusted proxies (NAMAZU_TRUST_PROXY) it is the address
 * the farthest of them appended to X-Forwarded-For, as Fastify reads it for `trustProxy: hops`: the
 * entries a client wrote itself, further left, are not believed (they would let it pick its own
 * address under per-address limits). Without a proxy it is the peer's address, whatever the header.
 */
import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';

/** The trust of Fastify's `trustProxy` and of `clientAddress`: the first `hops` hops, the peer first. */
export function trustedHops(hops: number): false | ((address: string, hop: number) => boolean) {
  return hops === 0 ? false : (_address, hop) => hop < hops;
}

export function clientAddress(req: IncomingMessage, hops: number): string | null {
  const trust = trustedHops(hops);
  return (trust ? proxyAddr(req, trust) : req.socket.remoteAddress) ?? null;
}

/**
 * What the per-address limits count a client address as: an IPv4 address itself (an IPv4-mapped
 * IPv6 one too), an IPv6 address its /64 network, which one subscriber holds whole and may pick
 * source addresses from at will (each would otherwise be a fresh allowance).
 */
export function addressGroup(address: string): string {
  if (!isIPv6(address)) return address;
  const bare = address.split('%')[0]!;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return mapped[1]!;
  // An embedded IPv4 tail stands for the last two groups.
  const groups = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const [head, tail] = bare.split('::') as [string, string | undefined];
  const first = groups(head);
  const full =
    tail === undefined
      ? first
      : [...first, ...Array<string>(8 - first.length - groups(tail).length).fill('0'), ...groups(tail)];
  return `${full
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
