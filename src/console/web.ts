import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { describeError } from '../http/errors.ts';
import type { App } from '../http/surface.ts';
import { publicUrls } from '../http/public-urls.ts';
import { acceptForms } from '../http/form.ts';
import { renderErrorPage, serverFailure, type ErrorPageOptions } from './error-page.ts';
import { securityHeaders, type CspOptions } from './html.ts';
import { languageOf } from './i18n.ts';

/** Shared plumbing of the server-rendered pages: replies with safe headers, form bodies, errors. */

export function sendPage(
  reply: FastifyReply,
  status: number,
  body: string,
  csp: CspOptions = {},
): FastifyReply {
  return reply.code(status).headers(securityHeaders(csp)).type('text/html; charset=utf-8').send(body);
}

/**
 * The one HTML error page: the status, what went wrong and, optionally, what to do; in the language
 * of the request's pages (`languageOf`, as every page), so no call site passes it by hand.
 */
export function sendErrorPage(
  reply: FastifyReply,
  status: number,
  message: string,
  options?: ErrorPageOptions,
): FastifyReply {
  return sendPage(reply, status, renderErrorPage(message, languageOf(reply.request), options));
}

/** 303 See Other (also after a POST, the browser follows with GET). */
export function sendRedirect(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).headers(securityHeaders()).header('location', encodeLocation(location)).send();
}

/**
 * A URL made fit for a `Location` header: every character outside printable ASCII (non-ASCII
 * text of a decoded `return_to`, spaces) percent-encoded as UTF-8; what is already encoded stays.
 */
export function encodeLocation(url: string): string {
  return url.replace(/[^\x21-\x7e]+/g, (run) =>
    [...Buffer.from(run, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

export function authOrigin(ctx: AppContext, request: FastifyRequest): string {
  return publicUrls(ctx.config, request).auth;
}

/**
 * Makes an encapsulated scope answer like a web page: urlencoded forms parsed strictly (repeated
 * fields kept, malformed bodies become null), and every error rendered as an HTML page.
 */
export function asWebScope(scope: App): void {
  acceptForms(scope);
  scope.setErrorHandler((err, request, reply) => {
    const { status, message } = describeError(err as Parameters<typeof describeError>[0]);
    if (status >= 500) request.log.error({ err, route: request.routeOptions.url }, 'request failed');
    if (status >= 500) sendErrorPage(reply, status, serverFailure(languageOf(request)));
    // The framework's refusals (a body too large, of another type…) are worded in English only.
    else sendErrorPage(reply, status, message, { messageLang: 'en' });
  });
}
