import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

/** Public origins of the four address roles (docs/api-contract.md "Addresses"), without trailing slash. */
export interface PublicUrls {
  auth: string;
  base: string;
  data: string;
  websocket: string;
}

const HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253})(:\d{1,5})?$/;

/**
 * The configured public URLs; a role left unconfigured gets the origin the client used (its Host
 * header and the request's protocol), so the service works as localhost, 127.0.0.1 or a LAN name
 * without configuration. Behind a proxy, configure the URLs (or trust the proxy's headers).
 */
export function publicUrls(config: Config, request: FastifyRequest): PublicUrls {
  const host = request.host;
  // A Host of the right shape may still be no URL's (a port over 65535, a malformed IPv6 literal).
  const valid = HOST.test(host) && URL.canParse(`http://${host}`);
  const fallbackHost = valid ? host : `127.0.0.1:${config.port}`;
  const origin = `${request.protocol}://${fallbackHost}`;
  const base = config.baseUrl ?? origin;
  return {
    auth: config.authUrl ?? origin,
    base,
    data: config.dataUrl ?? base,
    websocket: config.websocketUrl ?? base.replace(/^http/, 'ws'),
  };
}
