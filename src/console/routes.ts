import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { checkPassword, getAccount } from '../accounts/accounts.ts';
import { listAuthorizations, revokeAuthorization } from '../auth/authorizations.ts';
import { announceRevoked } from '../auth/tokens.ts';
import { countSigninAttempt, defaultSigninLimits, forgiveSigninAttempt } from '../auth/signin-limits.ts';
import type { WebSession } from '../auth/signin-sessions.ts';
import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { renderAccountPage } from './account-page.ts';
import { renderSigninPage } from './signin-page.ts';
import { formOf, singleValue } from '../http/form.ts';
import { renderPathErrors } from '../http/path-errors.ts';
import { asWebScope, authOrigin, sendErrorPage, sendPage, sendRedirect } from './web.ts';
import {
  currentSession,
  preSigninCsrf,
  preSigninCsrfValid,
  sessionCsrf,
  sessionCsrfValid,
  signIn,
  signOut,
} from './signin-cookies.ts';

/** Sign-in, sign-out and the account page (authorizations the account granted, and revoking one). */

export const consolePaths = {
  signin: '/account/signin',
  signout: '/account/signout',
  account: '/account',
  revoke: '/account/authorizations/:id/revoke',
} as const;

const MAX_RETURN_TO = 4096;
const MAX_EMAIL = 254;
const MAX_PASSWORD = 1024;
// Control characters (a NUL byte cannot even reach the database) never belong in an address.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A same-origin path to go to after sign-in; anything else falls back to the account page. */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_RETURN_TO) return consolePaths.account;
  // eslint-disable-next-line no-control-regex
  if (!value.startsWith('/') || /^\/[/\\]/.test(value) || /[\u0000-\u001f\u007f\\]/.test(value)) {
    return consolePaths.account;
  }
  return value;
}

export function signinUrl(origin: string, returnTo: string): string {
  return `${origin}${consolePaths.signin}?return_to=${encodeURIComponent(returnTo)}`;
}

const csrfRejected =
  'The form expired or was not sent from this site. Go back, reload the page and try again.';

export async function registerConsole(app: App, ctx: AppContext): Promise<void> {
  renderPathErrors(app, `${consolePaths.account}/`, (reply, status, message) => {
    sendErrorPage(reply, status, message);
  });
  await app.register(async (scope) => {
    asWebScope(scope);

    function showSignin(
      request: FastifyRequest,
      reply: FastifyReply,
      status: number,
      returnTo: string,
      extra: { email?: string; error?: string } = {},
    ) {
      const origin = authOrigin(ctx, request);
      const csrf = preSigninCsrf(ctx, request, reply);
      return sendPage(
        reply,
        status,
        renderSigninPage({ action: origin + consolePaths.signin, csrf, returnTo, ...extra }),
      );
    }

    scope.get(consolePaths.signin, async (request, reply) => {
      const returnTo = safeReturnTo((request.query as Record<string, unknown>).return_to);
      if (await currentSession(ctx, request)) return sendRedirect(reply, authOrigin(ctx, request) + returnTo);
      return showSignin(request, reply, 200, returnTo);
    });

    scope.post(consolePaths.signin, async (request, reply) => {
      const form = formOf(request);
      if (!form) return sendErrorPage(reply, 400, 'The sign-in form was malformed.');
      const returnTo = safeReturnTo(singleValue(form, 'return_to'));
      if (!preSigninCsrfValid(ctx, request, singleValue(form, 'csrf'))) {
        return sendErrorPage(reply, 403, csrfRejected);
      }
      const email = singleValue(form, 'email') ?? '';
      const password = singleValue(form, 'password') ?? '';
      if (!email || !password) {
        return showSignin(request, reply, 400, returnTo, {
          email,
          error: 'Enter your e-mail address and password.',
        });
      }
      const { waitMs, delayMs } = await countSigninAttempt(
        ctx.db,
        ctx.pepper,
        ctx.clock,
        defaultSigninLimits,
        email,
        request.ip,
      );
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        reply.header('retry-after', String(seconds));
        return showSignin(request, reply, 429, returnTo, {
          email,
          error: `Too many sign-in attempts. Try again in ${Math.ceil(seconds / 60)} minute(s).`,
        });
      }
      // An account under attack answers every attempt more slowly (docs/security.md "Sign-in").
      if (delayMs > 0) await sleep(delayMs);
      const plausible = email.length <= MAX_EMAIL && !CONTROL.test(email) && password.length <= MAX_PASSWORD;
      const account = plausible ? await checkPassword(ctx.db, email, password) : null;
      if (!account) {
        return showSignin(request, reply, 401, returnTo, {
          email,
          error: 'The e-mail address or the password is wrong.',
        });
      }
      await forgiveSigninAttempt(ctx.db, ctx.pepper, email, request.ip);
      await signIn(ctx, request, reply, account.id);
      return sendRedirect(reply, authOrigin(ctx, request) + returnTo);
    });

    scope.post(consolePaths.signout, async (request, reply) => {
      const form = formOf(request);
      if (!form) return sendErrorPage(reply, 400, 'The form was malformed.');
      const session = await currentSession(ctx, request);
      const origin = authOrigin(ctx, request);
      if (session) {
        if (!sessionCsrfValid(ctx, session, singleValue(form, 'csrf'))) {
          return sendErrorPage(reply, 403, csrfRejected);
        }
        await signOut(ctx, request, reply, session);
      }
      return sendRedirect(reply, signinUrl(origin, safeReturnTo(singleValue(form, 'return_to'))));
    });

    async function showAccount(request: FastifyRequest, reply: FastifyReply, session: WebSession) {
      const origin = authOrigin(ctx, request);
      const account = await getAccount(ctx.db, session.accountId);
      const revoked = (request.query as Record<string, unknown>).revoked === '1';
      return sendPage(
        reply,
        200,
        renderAccountPage({
          email: account?.email ?? '',
          csrf: sessionCsrf(ctx, session),
          authorizations: await listAuthorizations(ctx.db, ctx.clock, session.accountId),
          revokeAction: (id) => origin + consolePaths.revoke.replace(':id', String(id)),
          signoutAction: origin + consolePaths.signout,
          notice: revoked ? 'The authorization was revoked; its tokens no longer work.' : undefined,
        }),
      );
    }

    scope.get(consolePaths.account, async (request, reply) => {
      const session = await currentSession(ctx, request);
      if (!session) return sendRedirect(reply, signinUrl(authOrigin(ctx, request), consolePaths.account));
      return showAccount(request, reply, session);
    });

    scope.post(consolePaths.revoke, async (request, reply) => {
      const form = formOf(request);
      if (!form) return sendErrorPage(reply, 400, 'The form was malformed.');
      const origin = authOrigin(ctx, request);
      const session = await currentSession(ctx, request);
      if (!session) return sendRedirect(reply, signinUrl(origin, consolePaths.account));
      if (!sessionCsrfValid(ctx, session, singleValue(form, 'csrf'))) {
        return sendErrorPage(reply, 403, csrfRejected);
      }
      const id = (request.params as { id: string }).id;
      const revoked = /^\d{1,15}$/.test(id)
        ? await revokeAuthorization(ctx.db, session.accountId, Number(id))
        : null;
      if (!revoked) return sendErrorPage(reply, 404, 'No such authorization of your account.');
      await announceRevoked(ctx.bus, revoked);
      return sendRedirect(reply, `${origin}${consolePaths.account}?revoked=1`);
    });
  });
}
