import type { FastifyReply, FastifyRequest } from 'fastify';
import { getAccount } from '../accounts/accounts.ts';
import { findClient } from '../auth/clients.ts';
import { issueCode } from '../auth/codes.ts';
import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { validateAuthorizationRequest, type AuthorizeOutcome } from './authorize-request.ts';
import { errorResponse, successResponse, type AuthorizeResponse } from './authorize-response.ts';
import { issuerOf, oauthPaths } from './metadata.ts';
import { redirectSource } from '../auth/redirect-uris.ts';
import { renderConsentPage } from '../console/consent-page.ts';
import { languageOf } from '../console/i18n.ts';
import { header } from '../console/layout.ts';
import { authorizationHint } from '../console/error-page.ts';
import { formPostCsp, renderFormPostPage } from '../console/form-post-page.ts';
import { consolePaths, signinUrl } from '../console/routes.ts';
import { formOf, parseUrlEncoded, singleValue } from '../http/form.ts';
import { asWebScope, authOrigin, sendErrorPage, sendPage, sendRedirect } from '../console/web.ts';
import { currentSession, sessionCsrf, sessionCsrfValid } from '../console/signin-cookies.ts';

/**
 * The authorization endpoint (docs/oauth.md): GET validates the request, signs the user in when
 * needed and shows the consent page; the consent form POSTs the decision with the original query,
 * which is checked again before a code is issued. The pages themselves are rendered by console/.
 */

const consentPath = '/account/oauth2/v1/auth/consent';

/** Sends an authorization response: a 303 to the redirect URI, or the form_post page. */
function sendAuthorizeResponse(reply: FastifyReply, r: AuthorizeResponse): FastifyReply {
  if (r.kind === 'redirect') return sendRedirect(reply, r.location);
  return sendPage(reply, 200, renderFormPostPage(r.action, r.fields), formPostCsp(redirectSource(r.action)));
}

function rawQueryOf(request: FastifyRequest): string {
  const url = request.raw.url ?? '';
  const q = url.indexOf('?');
  return q === -1 ? '' : url.slice(q + 1);
}

const pageError = (reply: FastifyReply, message: string) =>
  sendErrorPage(reply, 400, message, authorizationHint);

export async function registerAuthorize(app: App, ctx: AppContext): Promise<void> {
  const lookupClient = (clientId: string) => findClient(ctx.db, clientId);

  /** Validates a raw authorization query; answers the request itself unless the query is valid. */
  async function validOrAnswer(request: FastifyRequest, reply: FastifyReply, rawQuery: string) {
    const params = parseUrlEncoded(rawQuery);
    if (!params) return { answered: pageError(reply, 'The query string of the request is malformed.') };
    const outcome: AuthorizeOutcome = await validateAuthorizationRequest(params, lookupClient);
    if (outcome.kind === 'page_error') return { answered: pageError(reply, outcome.message) };
    if (outcome.kind === 'redirect_error') {
      const issuer = issuerOf(authOrigin(ctx, request));
      return {
        answered: sendAuthorizeResponse(
          reply,
          errorResponse(outcome.delivery, issuer, outcome.error, outcome.description),
        ),
      };
    }
    return { valid: outcome };
  }

  await app.register(async (scope) => {
    asWebScope(scope);

    scope.get(oauthPaths.authorize, async (request, reply) => {
      const rawQuery = rawQueryOf(request);
      const checked = await validOrAnswer(request, reply, rawQuery);
      if (!checked.valid) return checked.answered;
      const { delivery, request: authz } = checked.valid;
      const origin = authOrigin(ctx, request);
      const issuer = issuerOf(origin);
      const session = await currentSession(ctx, request);
      if (!session) {
        if (authz.promptNone) {
          return sendAuthorizeResponse(
            reply,
            errorResponse(
              delivery,
              issuer,
              'no_signin',
              'The user is not signed in and prompt=none forbids asking.',
            ),
          );
        }
        return sendRedirect(reply, signinUrl(origin, `${oauthPaths.authorize}?${rawQuery}`));
      }
      if (authz.promptNone) {
        return sendAuthorizeResponse(
          reply,
          errorResponse(
            delivery,
            issuer,
            'access_denied',
            'The user must approve this application; prompt=none forbids asking.',
          ),
        );
      }
      const account = await getAccount(ctx.db, session.accountId);
      const lang = languageOf(request);
      return sendPage(
        reply,
        200,
        renderConsentPage({
          lang,
          header: header({ lang, origin, here: `${oauthPaths.authorize}?${rawQuery}`, minimal: true }),
          action: origin + consentPath,
          csrf: sessionCsrf(ctx, session),
          request: rawQuery,
          client: authz.client,
          scopes: authz.scopes,
          accountEmail: account?.email ?? '',
          signoutAction: origin + consolePaths.signout,
          signoutReturnTo: `${oauthPaths.authorize}?${rawQuery}`,
          accountUrl: origin + consolePaths.account,
        }),
        { formAction: [redirectSource(delivery.redirectUri)] },
      );
    });

    scope.post(consentPath, async (request, reply) => {
      const form = formOf(request);
      const rawQuery = form ? singleValue(form, 'request') : null;
      if (!form || rawQuery === null) return pageError(reply, 'The consent form was malformed.');
      const origin = authOrigin(ctx, request);
      const session = await currentSession(ctx, request);
      if (!session) return sendRedirect(reply, signinUrl(origin, `${oauthPaths.authorize}?${rawQuery}`));
      if (!sessionCsrfValid(ctx, session, singleValue(form, 'csrf'))) {
        return sendErrorPage(
          reply,
          403,
          'The consent form expired or was not sent from this site.',
          authorizationHint,
        );
      }
      const checked = await validOrAnswer(request, reply, rawQuery);
      if (!checked.valid) return checked.answered;
      const { delivery, request: authz } = checked.valid;
      const issuer = issuerOf(origin);
      const decision = singleValue(form, 'decision');
      if (decision === 'deny') {
        return sendAuthorizeResponse(
          reply,
          errorResponse(delivery, issuer, 'access_denied', 'The user denied the request.'),
        );
      }
      if (decision !== 'approve') return pageError(reply, 'The consent form was malformed.');
      let code: string;
      try {
        ({ code } = await ctx.db.tx((q) =>
          issueCode(q, ctx.pepper, ctx.clock, {
            clientId: authz.client.clientId,
            accountId: session.accountId,
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
        return sendAuthorizeResponse(
          reply,
          errorResponse(
            delivery,
            issuer,
            'server_error',
            'The authorization could not be recorded; try again.',
          ),
        );
      }
      return sendAuthorizeResponse(reply, successResponse(delivery, issuer, code));
    });
  });
}
