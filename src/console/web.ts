import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { describeError } from '../http/errors.ts';
import type { App } from '../http/surface.ts';
import { publicUrls } from '../http/public-urls.ts';
import { parseQuery, type Params } from '../oauth/authorize-request.ts';
import { renderErrorPage } from './error-page.ts';
import { securityHeaders, type CspOptions } from './html.ts';

/** Shared plumbing of the server-rendered pages: replies with safe headers, form bodies, errors. */

export const FORM_BODY_LIMIT = 16 * 1024;

export function sendPage(
  reply: FastifyReply,
  status: number,
  body: string,
  csp: CspOptions = {},
): FastifyReply {
  return reply.code(status).headers(securityHeaders(csp)).type('text/html; charset=utf-8').send(body);
}

/** 303 See Other (also after a POST, the browser follows with GET). */
export function sendRedirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).headers(securityHeaders()).header('location', location).send();
}

export function authOrigin(ctx: AppContext, request: FastifyRequest): string {
  return publicUrls(ctx.config, request).auth;
}

/** The one value of a form field, or null when absent or repeated. */
export function field(form: Params, name: string): string | null {
  const values = form.get(name);
  return values && values.length === 1 ? values[0]! : null;
}

/** The parsed form of a POST, or null when the body was not a well-formed urlencoded form. */
export function formOf(request: FastifyRequest): Params | null {
  return request.body instanceof Map ? (request.body as Params) : null;
}

/**
 * Makes an encapsulated scope answer like a web page: urlencoded forms parsed strictly (repeated
 * fields kept, malformed bodies become null), and every error rendered as an HTML page.
 */
export function asWebScope(scope: App): void {
  const form = 'application/x-www-form-urlencoded';
  if (scope.hasContentTypeParser(form)) scope.removeContentTypeParser(form);
  scope.addContentTypeParser(form, { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_req, body, done) =>
    done(null, parseQuery(body as string)),
  );
  scope.setErrorHandler((err, request, reply) => {
    const { status, message } = describeError(err as Parameters<typeof describeError>[0]);
    if (status >= 500) request.log.error({ err, route: request.routeOptions.url }, 'request failed');
    sendPage(reply, status, renderErrorPage(status >= 500 ? 'Something went wrong on the server.' : message));
  });
}
