import type { FastifyError, FastifyReply } from 'fastify';

/**
 * OAuth JSON errors of the token, revocation and introspection endpoints (RFC 6749 §5.2): a status,
 * an `error` code, an `error_description` and optional headers (WWW-Authenticate, DPoP-Nonce,
 * Retry-After).
 */
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

export const invalidRequest = (description: string) => new OAuthError(400, 'invalid_request', description);
export const invalidGrant = (description: string) => new OAuthError(400, 'invalid_grant', description);
export const invalidScope = (description: string) => new OAuthError(400, 'invalid_scope', description);
export const unauthorizedClient = (description: string) =>
  new OAuthError(400, 'unauthorized_client', description);

/**
 * RFC 6749 limits error_description to %x20-21 / %x23-5B / %x5D-7E; anything else (CR, LF, TAB,
 * `"`, `\`, non-ASCII) becomes a space, so no header or JSON consumer can be confused.
 */
export function cleanDescription(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, ' ').slice(0, 200);
}

function errorJson(e: OAuthError): { error: string; error_description: string } {
  return { error: e.error, error_description: cleanDescription(e.message) };
}

/** OAuth errors and anything Fastify throws, as an OAuthError; never a stack or internal detail. */
export function asOAuthError(err: FastifyError | OAuthError): OAuthError {
  if (err instanceof OAuthError) return err;
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new OAuthError(413, 'invalid_request', 'body too large');
  const status = err.statusCode ?? 500;
  if (status >= 400 && status < 500) return invalidRequest('malformed request');
  return new OAuthError(500, 'server_error', 'server error');
}

/** The one rendering of an OAuth error: RFC 6749 §5.2 JSON with the error's headers. */
export function sendOAuthError(reply: FastifyReply, e: OAuthError): FastifyReply {
  return reply.headers(e.headers).code(e.status).type('application/json; charset=utf-8').send(errorJson(e));
}
