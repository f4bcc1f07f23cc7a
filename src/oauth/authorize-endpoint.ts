import type { FastifyReply, FastifyRequest } from 'fastify';
import { findClient } from '../issuer/clients.ts';
import { issueCode } from '../issuer/codes.ts';
import type { AppContext } from '../context.ts';
import { formOf, parseUrlEncoded, singleValue } from '../http/form.ts';
import { publicUrls } from '../http/public-urls.ts';
import type { App } from '../http/surface.ts';
import {
  authorizationPages,
  type AuthorizationPages,
  type SignedInBrowser,
} from '../console/authorization/pages.ts';
import {
  validateAuthorizationRequest,
  type AuthorizationRequest,
  type AuthorizeErrorCode,
  type Delivery,
} from './authorize-request.ts';
import { errorResponse, successResponse, type AuthorizeResponse } from './authorize-response.ts';
import { issuerOf, oauthPaths } from './metadata.ts';
import { surfacePlugin } from '../http/plugins.ts';

/**
 * The authorization endpoint (docs/oauth.md): GET validates the request, signs the user in when
 * needed and shows the consent page; the consent form POSTs the decision with the original query,
 * which is checked again before a code is issued. The pages themselves are rendered by the
 * console, through `AuthorizationPages`.
 */

const consentPath = '/account/oauth2/v1/auth/consent';

/** A request that passed validation: where its answer goes, and what it asks. */
interface Valid {
  delivery: Delivery;
  authz: AuthorizationRequest;
}

function rawQueryOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q + 1);
}

const authorizePath = (rawQuery: string) => `${oauthPaths.authorize}?${rawQuery}`;

/** The authorization endpoint and its consent form, in a web scope of the console's pages. */
export const authorize = surfacePlugin('namazu-authorize', registerAuthorize);

async function registerAuthorize(app: App, ctx: AppContext): Promise<void> {
  const pages = authorizationPages(ctx);
  const endpoint = new AuthorizeEndpoint(ctx, pages);
  await app.register(async (scope) => {
    pages.webScope(scope);
    scope.get(oauthPaths.authorize, (request, reply) => endpoint.ask(request, reply));
    scope.post(consentPath, (request, reply) => endpoint.decide(request, reply));
  });
}

/** The two steps of an authorization: asking the user (GET), and their decision (the consent POST). */
class AuthorizeEndpoint {
  constructor(
    private readonly ctx: AppContext,
    private readonly pages: AuthorizationPages,
  ) {}

  /** Validates the request, then signs the user in or shows the consent page. */
  async ask(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const rawQuery = rawQueryOf(request);
    const valid = await this.validOrAnswer(request, reply, rawQuery);
    if (!valid) return reply;
    const { delivery, authz } = valid;
    const browser = await this.pages.signedIn(request);
    if (authz.promptNone) {
      const description = browser
        ? 'The user must approve this application; prompt=none forbids asking.'
        : 'The user is not signed in and prompt=none forbids asking.';
      return this.fail(request, reply, delivery, browser ? 'access_denied' : 'no_signin', description);
    }
    if (!browser) return this.pages.signIn(request, reply, authorizePath(rawQuery));
    return this.pages.consent(request, reply, {
      browser,
      client: authz.client,
      scopes: authz.scopes,
      query: rawQuery,
      action: consentPath,
      here: authorizePath(rawQuery),
      redirectUri: delivery.redirectUri,
    });
  }

  /** Checks the consent form and the request it carries again, then answers the client. */
  async decide(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const form = formOf(request);
    const rawQuery = form ? singleValue(form, 'request') : null;
    if (!form || rawQuery === null) return this.pages.refuse(reply, 400, 'The consent form was malformed.');
    const browser = await this.pages.signedIn(request);
    if (!browser) return this.pages.signIn(request, reply, authorizePath(rawQuery));
    if (!browser.csrfValid(singleValue(form, 'csrf'))) {
      return this.pages.refuse(reply, 403, 'The consent form expired or was not sent from this site.');
    }
    const valid = await this.validOrAnswer(request, reply, rawQuery);
    if (!valid) return reply;
    const decision = singleValue(form, 'decision');
    if (decision === 'deny') {
      return this.fail(request, reply, valid.delivery, 'access_denied', 'The user denied the request.');
    }
    if (decision !== 'approve') return this.pages.refuse(reply, 400, 'The consent form was malformed.');
    return this.approve(request, reply, valid, browser);
  }

  /** Issues the code and sends it to the client. */
  private async approve(
    request: FastifyRequest,
    reply: FastifyReply,
    valid: Valid,
    browser: SignedInBrowser,
  ) {
    const { delivery, authz } = valid;
    let code: string;
    try {
      ({ code } = await this.ctx.db.tx((q) =>
        issueCode(q, this.ctx.pepper, this.ctx.clock, {
          clientId: authz.client.clientId,
          accountId: browser.accountId,
          redirectUri: authz.requestedRedirectUri,
          scopes: authz.scopes,
          codeChallenge: authz.codeChallenge,
          codeChallengeMethod: authz.codeChallengeMethod,
          dpopJkt: authz.dpopJkt,
        }),
      ));
    } catch (err) {
      // The redirect URI is trusted by now, so the client hears of the failure (RFC 6749 §4.1.2.1).
      request.log.error({ err }, 'issuing an authorization code failed');
      const description = 'The authorization could not be recorded; try again.';
      return this.fail(request, reply, delivery, 'server_error', description);
    }
    return this.respond(reply, successResponse(delivery, this.issuer(request), code));
  }

  /**
   * The valid request of a raw authorization query; null after answering otherwise: an error page
   * when no redirect URI can be trusted, else the error sent to the client.
   */
  private async validOrAnswer(request: FastifyRequest, reply: FastifyReply, rawQuery: string) {
    const params = parseUrlEncoded(rawQuery);
    if (!params) {
      this.pages.refuse(reply, 400, 'The query string of the request is malformed.');
      return null;
    }
    const outcome = await validateAuthorizationRequest(params, (id) => findClient(this.ctx.db, id));
    if (outcome.kind === 'valid') return { delivery: outcome.delivery, authz: outcome.request };
    if (outcome.kind === 'page_error') this.pages.refuse(reply, 400, outcome.message);
    else this.fail(request, reply, outcome.delivery, outcome.error, outcome.description);
    return null;
  }

  private issuer(request: FastifyRequest): string {
    return issuerOf(publicUrls(this.ctx.config, request).auth);
  }

  /** Sends an error to the client's redirect URI. */
  private fail(
    request: FastifyRequest,
    reply: FastifyReply,
    delivery: Delivery,
    error: AuthorizeErrorCode,
    description: string,
  ): FastifyReply {
    return this.respond(reply, errorResponse(delivery, this.issuer(request), error, description));
  }

  /** Sends an authorization response: a 303 to the redirect URI, or the form_post page. */
  private respond(reply: FastifyReply, r: AuthorizeResponse): FastifyReply {
    if (r.kind === 'redirect') return this.pages.redirect(reply, r.location);
    return this.pages.formPost(reply, r.action, r.fields);
  }
}
