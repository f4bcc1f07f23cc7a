import type { FastifyError, FastifyReply } from 'fastify';
import { CodedError, type ErrorCode } from '../errors.ts';

/** The catalogue's OAuth error codes, named as on the wire (lower case). */
export type OAuthErrorCode = Extract<ErrorCode, Lowercase<ErrorCode>>;

/**
 * OAuth JSON errors of the token, revocation and introspection endpoints (RFC 6749 §5.2): a
 * catalogue entry named by its OAuth `error` code (src/errors.ts), an `error_description` and
 * optional headers (WWW-Authenticate, DPoP-Nonce, Retry-After); the status is the entry's unless
 * the endpoint documents another (405, 413, 429).
 */
export class OAuthError extends CodedError {
  constructor(
    error: OAuthErrorCode,
    description: string,
    headers: Record<string, string> = {},
    statusCode?: number,
  ) {
    super(error, { detail: description, headers, statusCode });
  }
}

export const invalidRequest = (description: string) => new OAuthError('invalid_request', description);
export const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);
export const invalidScope = (description: string) => new OAuthError('invalid_scope', description);
export const unauthorizedClient = (description: string) => new OAuthError('unauthorized_client', description);

/**
 * RFC 6749 limits error_description to %x20-21 / %x23-5B / %x5D-7E; anything else (CR, LF, TAB,
 * `"`, `\`, non-ASCII) becomes a space, so no header or JSON consumer can be confused.
 */
export function cleanDescription(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, ' ').slice(0, 200);
}

function errorJson(e: OAuthError): { error: string; error_description: string } {
  return { error: e.code, error_description: cleanDescription(e.answer) };
}

/** OAuth errors and anything Fastify throws, as an OAuthError; never a stack or internal detail. */
export function asOAuthError(err: FastifyError | OAuthError): OAuthError {
  if (err instanceof OAuthError) return err;
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new OAuthError('invalid_request', 'body too large', {}, 413);
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return invalidRequest('malformed request');
  return new OAuthError('server_error', 'server error');
}

/** The one rendering of an OAuth error: RFC 6749 §5.2 JSON with the error's headers. */
export function sendOAuthError(reply: FastifyReply, e: OAuthError): FastifyReply {
  return reply
    .headers(e.headers)
    .code(e.statusCode)
    .type('application/json; charset=utf-8')
    .send(errorJson(e));
}
