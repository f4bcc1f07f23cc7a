import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * The one parser of `application/x-www-form-urlencoded` data: form bodies of the OAuth endpoints
 * and the console pages, and the query string of the authorization endpoint.
 */

/** Largest form body any endpoint reads. */
export const FORM_BODY_LIMIT = 16 * 1024;
/** Most parameters any request needs; more is refused so parsing stays cheap. */
export const MAX_PARAMS = 50;

export type Params = ReadonlyMap<string, readonly string[]>;

/**
 * Parses urlencoded data strictly: `+` is a space, percent escapes must decode to valid UTF-8,
 * repeated names keep every value, empty values count as absent (RFC 6749 §3.1). Null when the
 * data is malformed or has more than MAX_PARAMS parameters.
 */
export function parseUrlEncoded(raw: string): Params | null {
  const out = new Map<string, string[]>();
  let count = 0;
  for (const pair of raw.split('&')) {
    if (pair === '') continue;
    if (++count > MAX_PARAMS) return null;
    const eq = pair.indexOf('=');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent((eq === -1 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
      value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      return null;
    }
    if (value === '') continue;
    const list = out.get(name);
    if (list) list.push(value);
    else out.set(name, [value]);
  }
  return out;
}

/** The one value of a parameter, or null when it is absent or repeated. */
export function singleValue(params: Params, name: string): string | null {
  const values = params.get(name);
  return values && values.length === 1 ? values[0]! : null;
}

/**
 * Makes an encapsulated scope parse urlencoded bodies with `parseUrlEncoded`, at most
 * FORM_BODY_LIMIT bytes; read them with `formOf`.
 */
export function acceptForms(scope: FastifyInstance): void {
  const form = 'application/x-www-form-urlencoded';
  if (scope.hasContentTypeParser(form)) scope.removeContentTypeParser(form);
  scope.addContentTypeParser(form, { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) =>
    done(null, parseUrlEncoded(body as string)),
  );
}

/** The parsed form of a request, or null when the body was not a well-formed urlencoded form. */
export function formOf(request: FastifyRequest): Params | null {
  return request.body instanceof Map ? (request.body as Params) : null;
}
