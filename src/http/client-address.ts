/**
 * The client address of a request, for the whole app: Fastify's `request.ip` (its `trustProxy`
 * setting, read by @fastify/proxy-addr) and the raw upgrade of a WebSocket, which Fastify does not
 * see, follow this one rule. Behind a trusted proxy (NAMAZU_TRUST_PROXY) it is the farthest address
 * of X-Forwarded-For, every hop being trusted as Fastify trusts them for `trustProxy: true`; else
 * the peer's address, whatever the header says.
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

const trustEveryHop = () => true;

export function clientAddress(req: IncomingMessage, trustProxy: boolean): string | null {
  return (trustProxy ? proxyAddr(req, trustEveryHop) : req.socket.remoteAddress) ?? null;
}
