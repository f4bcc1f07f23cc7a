import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { checkPassword } from '../accounts/accounts.ts';
import { countHeld } from '../accounts/caps.ts';
import { connectionLimit } from '../accounts/contracts.ts';
import { listAuthorizations, revokeAuthorization } from '../auth/authorizations.ts';
import { announceRevoked } from '../auth/tokens.ts';
import type { AppContext } from '../context.ts';
import type { App } from '../http/surface.ts';
import { formOf, singleValue } from '../http/form.ts';
import { renderPathErrors } from '../http/path-errors.ts';
import { publicUrls } from '../http/public-urls.ts';
import { listSessions } from '../sessions/socket-sessions.ts';
import { registerAccountRoutes } from './account-routes.ts';
import { dashboardText, renderAccountPage } from './account-page.ts';
import { registerAssets } from './assets/routes.ts';
import { registerCredentialRoutes } from './credential-routes.ts';
import { languageOf, languages, LANG_COOKIE, type Messages } from './i18n.ts';
import { header, pathOf, paths } from './layout.ts';
import { registerServiceRoutes } from './service-routes.ts';
import { countPasswordAttempt, forgivePasswordAttempt } from './password-attempts.ts';
import { renderSigninPage } from './signin-page.ts';
import { serializeCookie } from './cookies.ts';
import { asWebScope, authOrigin, sendErrorPage, sendPage, sendRedirect } from './web.ts';
import {
  currentSession,
  preSigninCsrf,
  preSigninCsrfValid,
  sessionCsrfValid,
  signIn,
  signOut,
} from './signin-cookies.ts';
import { postedForm, rowId, signedIn, signinUrl } from './visit.ts';

/**
 * The console (docs/console.md): sign-in, sign-out, the dashboard with the authorizations the
 * account granted, the root path and the language switch; the other areas register from their
 * own modules.
 */

export const consolePaths = paths;
export { signinUrl };

const MAX_RETURN_TO = 4096;
const MAX_EMAIL = 254;
const MAX_PASSWORD = 1024;
const LANG_COOKIE_MAX_AGE_S = 365 * 86_400;
// Control characters (a NUL byte cannot even reach the database) never belong in an address.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A same-origin path to go to after sign-in; anything else falls back to the account page. */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length > MAX_RETURN_TO) return paths.account;
  // eslint-disable-next-line no-control-regex
  if (!value.startsWith('/') || /^\/[/\\]/.test(value) || /[\u0000-\u001f\u007f\\]/.test(value)) {
    return paths.account;
  }
  return value;
}

type SigninKey = 'malformed' | 'csrf' | 'missing' | 'wrong' | 'tooMany' | 'noRevoke';

const text: Messages<SigninKey> = {
  en: {
    malformed: 'The sign-in form was malformed.',
    csrf: 'The form expired or was not sent from this site. Go back, reload the page and try again.',
    missing: 'Enter your e-mail address and password.',
    wrong: 'The e-mail address or the password is wrong.',
    tooMany: 'Too many sign-in attempts. Try again in {minutes} minute(s).',
    noRevoke: 'No such authorization of your account.',
  },
  ja: {
    malformed: 'サインインフォームの形式が正しくありません。',
    csrf: 'フォームの有効期限が切れたか、このサイトから送信されていません。戻ってページを再読み込みし、もう一度お試しください。',
    missing: 'メールアドレスとパスワードを入力してください。',
    wrong: 'メールアドレスまたはパスワードが違います。',
    tooMany: 'サインインの試行が多すぎます。{minutes}分後にもう一度お試しください。',
    noRevoke: 'あなたのアカウントにそのような許可はありません。',
  },
};

/** True when the client asked for a page (a browser), not for JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  return /text\/html|application\/xhtml\+xml/.test(accept);
}

export async function registerConsole(app: App, ctx: AppContext): Promise<void> {
  registerAssets(app);

  // The root: a person goes to the console, a program learns where the API reference is.
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (wantsHtml(request)) {
      const origin = authOrigin(ctx, request);
      const session = await currentSession(ctx, request);
      return sendRedirect(reply, origin + (session ? paths.account : paths.signin));
    }
    const urls = publicUrls(ctx.config, request);
    return reply.header('cache-control', 'no-store').send({
      service: 'Namazu',
      reference: `${urls.base}/reference`,
      openapi: `${urls.base}/openapi.json`,
      console: `${urls.auth}${paths.account}`,
    });
  });

  renderPathErrors(app, `${paths.account}/`, (reply, status, message) => {
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
      const lang = languageOf(request);
      const csrf = preSigninCsrf(ctx, request, reply);
      const signupOpen = ctx.config.signup === 'open';
      return sendPage(
        reply,
        status,
        renderSigninPage({
          lang,
          header: header({
            lang,
            origin,
            here: `${paths.signin}?return_to=${encodeURIComponent(returnTo)}`,
            signupOpen,
          }),
          action: origin + paths.signin,
          csrf,
          returnTo,
          signupUrl: signupOpen ? paths.signup : undefined,
          ...extra,
        }),
      );
    }

    scope.get(paths.signin, async (request, reply) => {
      const returnTo = safeReturnTo((request.query as Record<string, unknown>).return_to);
      if (await currentSession(ctx, request)) return sendRedirect(reply, authOrigin(ctx, request) + returnTo);
      return showSignin(request, reply, 200, returnTo);
    });

    scope.post(paths.signin, async (request, reply) => {
      const t = text[languageOf(request)];
      const form = formOf(request);
      if (!form) return sendErrorPage(reply, 400, t.malformed, undefined, languageOf(request));
      const returnTo = safeReturnTo(singleValue(form, 'return_to'));
      if (!preSigninCsrfValid(ctx, request, singleValue(form, 'csrf'))) {
        return sendErrorPage(reply, 403, t.csrf, undefined, languageOf(request));
      }
      const email = singleValue(form, 'email') ?? '';
      const password = singleValue(form, 'password') ?? '';
      if (!email || !password) {
        return showSignin(request, reply, 400, returnTo, { email, error: t.missing });
      }
      const { retryAfter, delayMs } = await countPasswordAttempt(ctx, request, reply, email);
      if (retryAfter > 0) {
        return showSignin(request, reply, 429, returnTo, {
          email,
          error: t.tooMany.replace('{minutes}', String(Math.ceil(retryAfter / 60))),
        });
      }
      // An account under attack answers every attempt more slowly (docs/security.md "Sign-in").
      if (delayMs > 0) await sleep(delayMs);
      const plausible = email.length <= MAX_EMAIL && !CONTROL.test(email) && password.length <= MAX_PASSWORD;
      const account = plausible ? await checkPassword(ctx.db, email, password) : null;
      if (!account) return showSignin(request, reply, 401, returnTo, { email, error: t.wrong });
      await forgivePasswordAttempt(ctx, request, email);
      await signIn(ctx, request, reply, account.id);
      return sendRedirect(reply, authOrigin(ctx, request) + returnTo);
    });

    scope.post(paths.signout, async (request, reply) => {
      const lang = languageOf(request);
      const form = formOf(request);
      if (!form) return sendErrorPage(reply, 400, text[lang].malformed, undefined, lang);
      const session = await currentSession(ctx, request);
      const origin = authOrigin(ctx, request);
      if (session) {
        if (!sessionCsrfValid(ctx, session, singleValue(form, 'csrf'))) {
          return sendErrorPage(reply, 403, text[lang].csrf, undefined, lang);
        }
        await signOut(ctx, request, reply, session);
      }
      return sendRedirect(reply, signinUrl(origin, safeReturnTo(singleValue(form, 'return_to'))));
    });

    // The language switch: a plain link (it changes nothing but the chosen language), back to the page.
    scope.get(paths.lang, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const to = languages.find((l) => l === query.to);
      const origin = authOrigin(ctx, request);
      if (to) {
        reply.header(
          'set-cookie',
          serializeCookie(LANG_COOKIE, to, {
            maxAge: LANG_COOKIE_MAX_AGE_S,
            secure: origin.startsWith('https:'),
          }),
        );
      }
      return sendRedirect(reply, origin + safeReturnTo(query.return_to));
    });

    scope.get(paths.account, async (request, reply) => {
      const here = paths.account;
      const visit = await signedIn(ctx, request, reply, here);
      if (!visit) return reply;
      const id = visit.account.id;
      const [authorizations, keys, clients, sessions, limit] = await Promise.all([
        listAuthorizations(ctx.db, ctx.clock, id),
        countHeld(ctx.db, id, 'apiKeys'),
        countHeld(ctx.db, id, 'oauthClients'),
        listSessions(ctx.db, id, { status: 'open', limit: 1000 }),
        connectionLimit(ctx.db, id),
      ]);
      const revoked = (request.query as Record<string, unknown>).revoked === '1';
      return sendPage(
        reply,
        200,
        renderAccountPage({
          lang: visit.lang,
          header: visit.header('dashboard', here),
          email: visit.account.email,
          csrf: visit.csrf,
          authorizations,
          counts: {
            keys,
            clients,
            openSessions: sessions.items.length,
            connectionLimit: limit,
          },
          revokeAction: (grant) => visit.origin + pathOf(paths.revoke, grant),
          notice: revoked ? dashboardText[visit.lang].revoked : undefined,
        }),
      );
    });

    scope.post(paths.revoke, async (request, reply) => {
      const posted = await postedForm(ctx, request, reply, paths.account);
      if (!posted) return reply;
      const { visit } = posted;
      const id = rowId((request.params as { id: string }).id);
      const revoked = id === null ? null : await revokeAuthorization(ctx.db, visit.account.id, id);
      if (!revoked) return sendErrorPage(reply, 404, text[visit.lang].noRevoke, undefined, visit.lang);
      await announceRevoked(ctx.bus, revoked);
      return sendRedirect(reply, `${visit.origin}${paths.account}?revoked=1`);
    });

    await registerAccountRoutes(scope, ctx);
    await registerCredentialRoutes(scope, ctx);
    await registerServiceRoutes(scope, ctx);
  });
}
