import type { Config } from '../config.ts';

/** Proxies close a connection idle for 60 s (nginx, most load balancers): a quiet stream writes well within. */
const PROXY_KEEP_ALIVE_MS = 15_000;

/**
 * How often a server-sent-event stream writes its comment line when nothing else moves: every 15 s,
 * or `atMostMs` when shorter, and within half the server's own idle time-out
 * (NAMAZU_IDLE_TIMEOUT_MS, app.ts `connectionTimeout`), which closes a connection on which nothing
 * moves: a quiet stream would be dropped, and a client that saw no event yet would miss what came
 * while it reconnected.
 */
export function keepAliveInterval(
  config: Pick<Config, 'idleTimeoutMs'>,
  atMostMs = PROXY_KEEP_ALIVE_MS,
): number {
  return Math.min(PROXY_KEEP_ALIVE_MS, atMostMs, config.idleTimeoutMs / 2);
}
