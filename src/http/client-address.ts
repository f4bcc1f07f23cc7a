/**
 * The client address of a request, for the whole app: Fastify's `request.ip` (its `trustProxy`
 * setting, read by @fastify/proxy-addr) and the raw upgrade of a WebSocket, which Fastify does not
 * see, follow this one rule. Behind `hops` trusted proxies (NAMAZU_TRUST_PROXY) it is the address
 * the farthest of them appended to X-Forwarded-For, as Fastify reads it for `trustProxy: hops`: the
 * entries a client wrote itself, further left, are not believed (they would let it pick its own
 * address under per-address limits). Without a proxy it is the peer's address, whatever the header.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/** The trust of Fastify's `trustProxy` and of `clientAddress`: the first `hops` hops, the peer first. */
export function trustedHops(hops: number): false | ((address: string, hop: number) => boolean) {
  return hops === 0 ? false : (_address, hop) => hop < hops;
}

export function clientAddress(req: IncomingMessage, hops: number): string | null {
  const trust = trustedHops(hops);
  return (trust ? proxyAddr(req, trust) : req.socket.remoteAddress) ?? null;
}
