import type { FastifyReply, FastifyRequest } from 'fastify';
import { getAccount, type Account } from '../accounts/accounts.ts';
import type { WebSession } from './signin/signin-sessions.ts';
import type { AppContext } from '../context.ts';
import { formOf, singleValue, type Params } from '../http/form.ts';
import type { App } from '../http/surface.ts';
import { languageOf, type Lang, type Messages } from './i18n.ts';
import { header, type Section } from './layout.ts';
import type { SafeHtml } from './html.ts';
import { paths } from './paths.ts';
import { currentSession, sessionCsrf, sessionCsrfValid } from './signin/session-cookies.ts';
import { authOrigin, sendErrorPage, sendRedirect } from './web.ts';

/**
 * The signed-in visit of the console's areas: each area's one `preHandler` (`guardVisits`) finds
 * who is signed in, checks the CSRF token of a posted form, and sets `request.visit`; a handler
 * behind it never checks again.
 */

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person; set by the area's `guardVisits` hook before any of its handlers runs. */
    visit: Visit;
  }
  interface FastifyContextConfig {
    /** The page sign-in leads back to from this route (default: the route's own path). */
    returnTo?: string;
  }
}

/** A request of a signed-in person to a console page: who, in which language, with what token. */
export interface Visit {
  session: WebSession;
  account: Account;
  lang: Lang;
  csrf: string;
  origin: string;
  header(section: Section, here: string): SafeHtml;
}

/** A console route's query as the browser sent it: a repeated name gives every value. */
export type QueryOf<K extends string> = { [P in K]?: string | string[] };

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

/** The visit of the request's sign-in session, or null when it has none (or its account is gone). */
export async function findVisit(ctx: AppContext, request: FastifyRequest): Promise<Visit | null> {
  const session = await currentSession(ctx, request);
  const account = session ? await getAccount(ctx.db, session.accountId) : null;
  if (!session || !account) return null;
  const origin = authOrigin(ctx, request);
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

/** How an area admits a visit. */
export interface VisitGate {
  /** Where sign-in leads back to (default: the route's `returnTo`, else its own path). */
  returnTo?(request: FastifyRequest): string;
  /**
   * Whether the gate checks posted forms (default true): a POST whose form is malformed is
   * answered 400 before anything else, one whose CSRF token is refused 403. An area that checks
   * its forms itself (in `admit`) says false.
   */
  forms?: boolean;
  /** The area's own condition on a visit; answers the request and returns false to refuse it. */
  admit?(visit: Visit, request: FastifyRequest, reply: FastifyReply): boolean;
}

/** The route's own path with its parameters filled in, as sign-in's way back. */
function routePath(request: FastifyRequest): string {
  const url = request.routeOptions.url ?? paths.account;
  const params = request.params as Record<string, string>;
  return url.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/**
 * The visit of a console request, set on `request.visit`; false after answering instead (a
 * redirect to sign-in, a refused form, or the area's own refusal): nothing is changed then.
 */
export async function admitVisit(
  ctx: AppContext,
  gate: VisitGate,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<boolean> {
  const checksForm = (gate.forms ?? true) && request.method === 'POST';
  const form = checksForm ? formOf(request) : null;
  if (checksForm && !form) {
    const lang = languageOf(request);
    sendErrorPage(reply, 400, text[lang].malformed);
    return false;
  }
  const visit = await findVisit(ctx, request);
  if (!visit) {
    const back = gate.returnTo?.(request) ?? request.routeOptions.config.returnTo ?? routePath(request);
    sendRedirect(reply, signinUrl(authOrigin(ctx, request), back));
    return false;
  }
  if (form && !sessionCsrfValid(ctx, visit.session, singleValue(form, 'csrf'))) {
    sendErrorPage(reply, 403, text[visit.lang].csrf);
    return false;
  }
  if (gate.admit && !gate.admit(visit, request, reply)) return false;
  request.visit = visit;
  return true;
}

/** Declares `request.visit` once, for every area registered below `scope`. */
export function acceptVisits(scope: App): void {
  scope.decorateRequest('visit', null as unknown as Visit);
}

/**
 * The one preHandler of an area: every route of `scope` runs for a signed-in visit its gate
 * admits. A route that admitted its visit before its body was read (`admitVisit` in its own
 * `onRequest`) is not checked twice.
 */
export function guardVisits(scope: App, ctx: AppContext, gate: VisitGate = {}): void {
  scope.addHook('preHandler', async (request, reply) => {
    if (request.visit) return;
    if (!(await admitVisit(ctx, gate, request, reply))) return reply;
  });
}

/** The form of a POST its area's gate admitted: well-formed, with the session's CSRF token. */
export function checkedForm(request: FastifyRequest): Params {
  const form = formOf(request);
  if (!form) throw new Error(`${request.routeOptions.url}: a form read outside a gated POST route`);
  return form;
}

/** A positive row id from a path parameter, or null. */
export function rowId(value: unknown): number | null {
  return typeof value === 'string' && /^[1-9]\d{0,14}$/.test(value) ? Number(value) : null;
}
