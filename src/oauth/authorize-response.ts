import type { AuthorizeErrorCode, Delivery } from './authorize-request.ts';

/**
 * The authorization response for the client's redirect URI in the chosen response mode: a URL to
 * redirect to (`query`, `fragment`), or the fields a page must POST there (`form_post`). Every
 * response carries `iss` (RFC 9207) and, when the request's state was valid, `state`.
 */
export type AuthorizeResponse =
  { kind: 'redirect'; location: string } | { kind: 'form_post'; action: string; fields: [string, string][] };

function respond(delivery: Delivery, issuer: string, first: [string, string][]): AuthorizeResponse {
  const fields = [...first];
  if (delivery.state !== null) fields.push(['state', delivery.state]);
  fields.push(['iss', issuer]);
  const uri = delivery.redirectUri;
  if (delivery.mode === 'form_post') return { kind: 'form_post', action: uri, fields };
  const encoded = new URLSearchParams(fields).toString();
  if (delivery.mode === 'fragment') return { kind: 'redirect', location: `${uri}#${encoded}` };
  if (!uri.includes('?')) return { kind: 'redirect', location: `${uri}?${encoded}` };
  const joiner = uri.endsWith('?') || uri.endsWith('&') ? '' : '&';
  return { kind: 'redirect', location: uri + joiner + encoded };
}

export function successResponse(delivery: Delivery, issuer: string, code: string): AuthorizeResponse {
  return respond(delivery, issuer, [['code', code]]);
}

export function errorResponse(
  delivery: Delivery,
  issuer: string,
  error: AuthorizeErrorCode,
  description: string,
): AuthorizeResponse {
  return respond(delivery, issuer, [
    ['error', error],
    ['error_description', description],
  ]);
}
