/**
 * Whether an error says the database could not be reached, rather than that a statement failed: a
 * refused or cut connection, the pool's time-out waiting for one, or a server that is shutting down
 * or starting (SQLSTATE class 08, 57P01–57P03). Requests that meet one are answered 503 (try again
 * shortly), not 500: nothing is wrong with the request or the code, and it passes once the database
 * is back (docs/operations.md "When the database is unreachable").
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);
const SERVER_CODES = new Set(['57P01', '57P02', '57P03']);
/** node-postgres names these failures by message only. */
const CLIENT_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
];

export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (
    typeof code === 'string' &&
    (NETWORK_CODES.has(code) || SERVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  return typeof message === 'string' && CLIENT_MESSAGES.some((m) => message.startsWith(m));
}
