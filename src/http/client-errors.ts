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
    answerAndClose(socket, code, now(), !headRequest(err));
  };
}

/**
 * Node's `connect`: a CONNECT request, which Node would otherwise answer by closing the connection
 * with no response. This server is no proxy: 405, then the connection closes.
 */
export function connectHandler(now: () => number) {
  return (_request: unknown, socket: Duplex): void => {
    socket.on('error', () => {});
    answerAndClose(socket, 'METHOD_NOT_ALLOWED', now(), true);
  };
}

/** Writes the error envelope of `code` as a whole response on the raw socket, then closes it. */
function answerAndClose(socket: Duplex, code: ErrorCode, now: number, withBody: boolean): void {
  const { status } = errorCatalogue[code];
  if (socket.writable) {
    const body = JSON.stringify(errorBody(status, catalogueMessage(code), now));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${withBody ? body : ''}`,
    );
  }
  socket.destroy();
}

/**
 * Whether the refused request is a HEAD, whose answer has no body (RFC 9110 §9.3.2): a client
 * reads bytes after it as a broken next response. The parser gives the data it was reading, which
 * holds the request line unless the headers spanned reads (then the body goes, as for any other).
 */
function headRequest(err: NodeJS.ErrnoException & { rawPacket?: unknown }): boolean {
  return Buffer.isBuffer(err.rawPacket) && err.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
}
