import type { FastifyReply, FastifyRequest } from 'fastify';
import { getAccount, type Account } from '../accounts/accounts.ts';
import type { WebSession } from '../auth/signin-sessions.ts';
import type { AppContext } from '../context.ts';
import { formOf, type Params } from '../http/form.ts';
import { languageOf, type Lang, type Messages } from './i18n.ts';
import { header, paths, type Section } from './layout.ts';
import type { SafeHtml } from './html.ts';
import { currentSession, sessionCsrf, sessionCsrfValid } from './signin-cookies.ts';
import { authOrigin, sendErrorPage, sendRedirect } from './web.ts';

/** A request of a signed-in person to a console page: who, in which language, with what token. */
export interface Visit {
  session: WebSession;
  account: Account;
  lang: Lang;
  csrf: string;
  origin: string;
  header(section: Section, here: string): SafeHtml;
}

const text: Messages<'malformed' | 'csrf'> = {
  en: {
    malformed: 'The form was malformed.',
    csrf: 'The form expired or was not sent from this site. Go back, reload the page and try again.',
  },
  ja: {
    malformed: 'フォームの形式が正しくありません。',
    csrf: 'フォームの有効期限が切れたか、このサイトから送信されていません。戻ってページを再読み込みし、もう一度お試しください。',
  },
};

export function signinUrl(origin: string, returnTo: string): string {
  return `${origin}${paths.signin}?return_to=${encodeURIComponent(returnTo)}`;
}

/** The visit, or null after answering with a redirect to sign-in (returning to `here`). */
export async function signedIn(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  here: string,
): Promise<Visit | null> {
  const origin = authOrigin(ctx, request);
  const session = await currentSession(ctx, request);
  const account = session ? await getAccount(ctx.db, session.accountId) : null;
  if (!session || !account) {
    sendRedirect(reply, signinUrl(origin, here));
    return null;
  }
  const lang = languageOf(request);
  const csrf = sessionCsrf(ctx, session);
  return {
    session,
    account,
    lang,
    csrf,
    origin,
    header: (section, path) =>
      header({
        lang,
        here: path,
        origin,
        account: { email: account.email, csrf, admin: account.isAdmin },
        section,
      }),
  };
}

/**
 * The posted form of a signed-in visit with a valid CSRF token; otherwise null after answering
 * (sign-in redirect, 400 malformed, 403 token refused) — nothing is changed.
 */
export async function postedForm(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  back: string,
): Promise<{ visit: Visit; form: Params } | null> {
  const form = formOf(request);
  const lang = languageOf(request);
  if (!form) {
    sendErrorPage(reply, 400, text[lang].malformed, undefined, lang);
    return null;
  }
  const visit = await signedIn(ctx, request, reply, back);
  if (!visit) return null;
  const submitted = form.get('csrf');
  if (!sessionCsrfValid(ctx, visit.session, submitted?.length === 1 ? submitted[0] : undefined)) {
    sendErrorPage(reply, 403, text[lang].csrf, undefined, lang);
    return null;
  }
  return { visit, form };
}

/** A positive row id from a path parameter, or null. */
export function rowId(value: unknown): number | null {
  return typeof value === 'string' && /^[1-9]\d{0,14}$/.test(value) ? Number(value) : null;
}
