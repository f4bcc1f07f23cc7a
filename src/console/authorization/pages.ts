import type { FastifyReply, FastifyRequest } from 'fastify';
import { getAccount } from '../../accounts/accounts.ts';
import type { OAuthClient } from '../../issuer/clients.ts';
import { redirectSource } from '../../issuer/redirect-uris.ts';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/surface.ts';
import { renderConsentPage } from './consent-page.ts';
import { authorizationHint } from '../error-page.ts';
import { formPostCsp, renderFormPostPage } from './form-post-page.ts';
import { languageOf } from '../i18n.ts';
import { header } from '../layout.ts';
import { paths } from '../paths.ts';
import { currentSession, sessionCsrf, sessionCsrfValid } from '../signin/session-cookies.ts';
import { signinUrl } from '../visit.ts';
import { asWebScope, authOrigin, sendErrorPage, sendPage, sendRedirect } from '../web.ts';

/**
 * The pages of the authorization endpoint (docs/oauth.md), rendered by the console: what the
 * endpoint may ask of the console, and nothing more.
 */
export interface AuthorizationPages {
  /** Makes the endpoint's encapsulated scope answer like the console's pages (forms, HTML errors). */
  webScope(scope: App): void;
  /** The browser's sign-in, or null when it is signed out. */
  signedIn(request: FastifyRequest): Promise<SignedInBrowser | null>;
  /** Redirects to sign-in, which leads back to `returnTo` (a path of this origin). */
  signIn(request: FastifyRequest, reply: FastifyReply, returnTo: string): FastifyReply;
  /** The consent page of a valid request, for the signed-in browser. */
  consent(request: FastifyRequest, reply: FastifyReply, view: ConsentRequest): Promise<FastifyReply>;
  /** A page for a request that cannot be completed: nothing was sent to the application. */
  refuse(reply: FastifyReply, status: number, message: string): FastifyReply;
  /** The authorization response: a 303 to the client's redirect URI. */
  redirect(reply: FastifyReply, location: string): FastifyReply;
  /** The authorization response in the `form_post` mode: a page that POSTs the fields to `action`. */
  formPost(reply: FastifyReply, action: string, fields: [string, string][]): FastifyReply;
}

export interface SignedInBrowser {
  accountId: number;
  /** Checks a CSRF token posted with a form of this sign-in session. */
  csrfValid(submitted: unknown): boolean;
  /** The token that a form shown to this session posts back. */
  csrf: string;
}

export interface ConsentRequest {
  browser: SignedInBrowser;
  client: OAuthClient;
  scopes: string[];
  /** The authorization request's query string, posted back with the decision. */
  query: string;
  /** The path (of this origin) the decision is posted to. */
  action: string;
  /** The path of this authorization request (where signing out as someone else leads back to). */
  here: string;
  /** Where the decision's answer goes: the client's redirect URI. */
  redirectUri: string;
}

export function authorizationPages(ctx: AppContext): AuthorizationPages {
  return {
    webScope: asWebScope,
    async signedIn(request) {
      const session = await currentSession(ctx, request);
      if (!session) return null;
      return {
        accountId: session.accountId,
        csrf: sessionCsrf(ctx, session),
        csrfValid: (submitted) => sessionCsrfValid(ctx, session, submitted),
      };
    },
    signIn: (request, reply, returnTo) => sendRedirect(reply, signinUrl(authOrigin(ctx, request), returnTo)),
    async consent(request, reply, view) {
      const origin = authOrigin(ctx, request);
      const lang = languageOf(request);
      const account = await getAccount(ctx.db, view.browser.accountId);
      const page = renderConsentPage({
        lang,
        header: header({ lang, origin, here: view.here, minimal: true }),
        action: origin + view.action,
        csrf: view.browser.csrf,
        request: view.query,
        client: view.client,
        scopes: view.scopes,
        accountEmail: account?.email ?? '',
        signoutAction: origin + paths.signout,
        signoutReturnTo: view.here,
        accountUrl: origin + paths.account,
      });
      return sendPage(reply, 200, page, { formAction: [redirectSource(view.redirectUri)] });
    },
    // The authorization server's refusals are worded in English only.
    refuse: (reply, status, message) =>
      sendErrorPage(reply, status, message, { hint: authorizationHint, messageLang: 'en' }),
    redirect: sendRedirect,
    formPost: (reply, action, fields) =>
      sendPage(reply, 200, renderFormPostPage(action, fields), formPostCsp(redirectSource(action))),
  };
}
