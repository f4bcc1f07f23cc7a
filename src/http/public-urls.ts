import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

/** Public origins of the four address roles (docs/api-contract.md "Addresses"), without trailing slash. */
export interface PublicUrls {
  readonly auth: string;
  readonly base: string;
  readonly data: string;
  readonly websocket: string;
}

const HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253})(:\d{1,5})?$/;

/**
 * The configured public URLs; a role left unconfigured gets the origin the client used (its Host
 * header and the request's protocol), so the service works as localhost, 127.0.0.1 or a LAN name
 * without configuration. Behind a proxy, configure the URLs (or trust the proxy's headers).
 */
export function publicUrls(config: Config, request: FastifyRequest): PublicUrls {
  const { host, protocol } = request;
  // Nearly every request of a process names the same origin: keep the last answer.
  if (last.config === config && last.host === host && last.protocol === protocol) return last.urls;
  const fallbackHost = HOST.test(host) ? host : `127.0.0.1:${config.port}`;
  const origin = `${protocol}://${fallbackHost}`;
  const base = config.baseUrl ?? origin;
  const urls = {
    auth: config.authUrl ?? origin,
    base,
    data: config.dataUrl ?? base,
    websocket: config.websocketUrl ?? base.replace(/^http/, 'ws'),
  };
  last = { config, host, protocol, urls };
  return urls;
}

let last: { config?: Config; host?: string; protocol?: string; urls: PublicUrls } = {
  urls: { auth: '', base: '', data: '', websocket: '' },
};
