import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from './envelope.ts';
import { catalogueMessage, errorCatalogue, type ErrorCode } from '../errors.ts';

/**
 * Node's `clientError`: a request its HTTP parser refused before any route saw it (a malformed
 * request line, headers over the size limit, headers not finished in time). The answer is the
 * data API's error envelope with a standard message (docs/api-contract.md "Errors"), never the
 * framework's own body; the connection is then closed. The path, and so the surface, is unknown.
 */
export function clientErrorHandler(now: () => number) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const code: ErrorCode =
      err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'REQUEST_TIMEOUT'
        : err.code === 'HPE_HEADER_OVERFLOW'
          ? 'HEADERS_TOO_LARGE'
          : 'BAD_REQUEST';
    const { status } = errorCatalogue[code];
    const message = catalogueMessage(code);
    if (socket.writable) {
      const body = JSON.stringify(errorBody(status, message, now()));
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
