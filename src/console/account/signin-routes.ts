import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { checkPassword } from '../../accounts/accounts.ts';
import type { AppContext } from '../../context.ts';
import { formOf, singleValue } from '../../http/form.ts';
import type { App } from '../../http/surface.ts';
import { serializeCookie } from '../signin/cookies.ts';
import { languageOf, languages, LANG_COOKIE, type Messages } from '../i18n.ts';
import { header } from '../layout.ts';
import { countPasswordAttempt, forgivePasswordAttempt } from '../signin/password-attempts.ts';
import { paths } from '../paths.ts';
import {
  currentSession,
  preSigninCsrf,
  preSigninCsrfValid,
  sessionCsrfValid,
  signIn,
  signOut,
} from '../signin/session-cookies.ts';
import { renderSigninPage } from './signin-page.ts';
import { signinUrl, type QueryOf } from '../visit.ts';
import { authOrigin, sendErrorPage, sendPage, sendRedirect } from '../web.ts';

/** Sign-in, sign-out and the language switch: the account area's pages for anyone (docs/console.md). */

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

type SigninKey = 'malformed' | 'csrf' | 'missing' | 'wrong' | 'tooMany';

const text: Messages<SigninKey> = {
  en: {
    malformed: 'The sign-in form was malformed.',
    csrf: 'The form expired or was not sent from this site. Go back, reload the page and try again.',
    missing: 'Enter your e-mail address and password.',
    wrong: 'The e-mail address or the password is wrong.',
    tooMany: 'Too many sign-in attempts. Try again in {minutes} minute(s).',
  },
  ja: {
    malformed: 'サインインフォームの形式が正しくありません。',
    csrf: 'フォームの有効期限が切れたか、このサイトから送信されていません。戻ってページを再読み込みし、もう一度お試しください。',
    missing: 'メールアドレスとパスワードを入力してください。',
    wrong: 'メールアドレスまたはパスワードが違います。',
    tooMany: 'サインインの試行が多すぎます。{minutes}分後にもう一度お試しください。',
  },
};

interface SigninForm {
  returnTo: string;
  email: string;
  password: string;
}

function showSignin(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  returnTo: string,
  extra: { email?: string; error?: string } = {},
) {
  const origin = authOrigin(ctx, request);
  const lang = languageOf(request);
  const signupOpen = ctx.config.signup === 'open';
  const here = `${paths.signin}?return_to=${encodeURIComponent(returnTo)}`;
  return sendPage(
    reply,
    status,
    renderSigninPage({
      lang,
      header: header({ lang, origin, here, signupOpen }),
      action: origin + paths.signin,
      csrf: preSigninCsrf(ctx, request, reply),
      returnTo,
      signupUrl: signupOpen ? paths.signup : undefined,
      ...extra,
    }),
  );
}

/** The fields of a sign-in form with a valid pre-sign-in CSRF token; null after answering. */
function signinForm(ctx: AppContext, request: FastifyRequest, reply: FastifyReply): SigninForm | null {
  const lang = languageOf(request);
  const form = formOf(request);
  if (!form) {
    sendErrorPage(reply, 400, text[lang].malformed);
    return null;
  }
  if (!preSigninCsrfValid(ctx, request, singleValue(form, 'csrf'))) {
    sendErrorPage(reply, 403, text[lang].csrf);
    return null;
  }
  return {
    returnTo: safeReturnTo(singleValue(form, 'return_to')),
    email: singleValue(form, 'email') ?? '',
    password: singleValue(form, 'password') ?? '',
  };
}

/** Counts the attempt; false after answering 429 when the address or the client tried too often. */
async function attemptAllowed(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  posted: SigninForm,
) {
  const { email, returnTo } = posted;
  const { retryAfter, delayMs } = await countPasswordAttempt(ctx, request, reply, email);
  if (retryAfter > 0) {
    const minutes = String(Math.ceil(retryAfter / 60));
    const error = text[languageOf(request)].tooMany.replace('{minutes}', minutes);
    await showSignin(ctx, request, reply, 429, returnTo, { email, error });
    return false;
  }
  // An account under attack answers every attempt more slowly (docs/security.md "Sign-in").
  if (delayMs > 0) await sleep(delayMs);
  return true;
}

export async function signinRoutes(scope: App, { ctx }: { ctx: AppContext }): Promise<void> {
  scope.get<{ Querystring: QueryOf<'return_to'> }>(paths.signin, async (request, reply) => {
    const returnTo = safeReturnTo(request.query.return_to);
    if (await currentSession(ctx, request)) return sendRedirect(reply, authOrigin(ctx, request) + returnTo);
    return showSignin(ctx, request, reply, 200, returnTo);
  });

  scope.post(paths.signin, async (request, reply) => {
    const posted = signinForm(ctx, request, reply);
    if (!posted) return reply;
    const { email, password, returnTo } = posted;
    const t = text[languageOf(request)];
    if (!email || !password)
      return showSignin(ctx, request, reply, 400, returnTo, { email, error: t.missing });
    if (!(await attemptAllowed(ctx, request, reply, posted))) return reply;
    const plausible = email.length <= MAX_EMAIL && !CONTROL.test(email) && password.length <= MAX_PASSWORD;
    const account = plausible ? await checkPassword(ctx.db, email, password) : null;
    if (!account) return showSignin(ctx, request, reply, 401, returnTo, { email, error: t.wrong });
    await forgivePasswordAttempt(ctx, request, email);
    await signIn(ctx, request, reply, account.id);
    return sendRedirect(reply, authOrigin(ctx, request) + returnTo);
  });

  scope.post(paths.signout, async (request, reply) => {
    const lang = languageOf(request);
    const form = formOf(request);
    if (!form) return sendErrorPage(reply, 400, text[lang].malformed);
    const session = await currentSession(ctx, request);
    if (session) {
      if (!sessionCsrfValid(ctx, session, singleValue(form, 'csrf'))) {
        return sendErrorPage(reply, 403, text[lang].csrf);
      }
      await signOut(ctx, request, reply, session);
    }
    const back = safeReturnTo(singleValue(form, 'return_to'));
    return sendRedirect(reply, signinUrl(authOrigin(ctx, request), back));
  });

  // The language switch: a plain link (it changes nothing but the chosen language), back to the page.
  scope.get<{ Querystring: QueryOf<'to' | 'return_to'> }>(paths.lang, async (request, reply) => {
    const to = languages.find((l) => l === request.query.to);
    const origin = authOrigin(ctx, request);
    if (to) {
      const secure = origin.startsWith('https:');
      reply.header('set-cookie', serializeCookie(LANG_COOKIE, to, { maxAge: LANG_COOKIE_MAX_AGE_S, secure }));
    }
    return sendRedirect(reply, origin + safeReturnTo(request.query.return_to));
  });
}
