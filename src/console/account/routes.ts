import type { FastifyReply } from 'fastify';
import { changePassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../accounts/accounts.ts';
import { countHeld } from '../../accounts/caps.ts';
import { connectionLimit, contractedClassifications } from '../../accounts/contracts.ts';
import { listAuthorizations, revokeAuthorization } from '../../issuer/authorizations.ts';
import { deleteOtherSessions } from '../signin/signin-sessions.ts';
import { announceRevoked } from '../../issuer/tokens.ts';
import type { AppContext } from '../../context.ts';
import { singleValue } from '../../http/form.ts';
import type { App } from '../../http/surface.ts';
import { listSessions } from '../../sessions/socket-sessions.ts';
import { renderPasswordPage, type PasswordField } from './forms-page.ts';
import { dashboardText, renderAccountPage } from './page.ts';
import { accountText } from './text.ts';
import type { Messages } from '../i18n.ts';
import { countPasswordAttempt, forgivePasswordAttempt } from '../signin/password-attempts.ts';
import { pathOf, paths } from '../paths.ts';
import { signinRoutes } from './signin-routes.ts';
import { signupRoutes } from './signup-routes.ts';
import { checkedForm, guardVisits, rowId, type QueryOf, type Visit } from '../visit.ts';
import { sendErrorPage, sendPage, sendRedirect } from '../web.ts';

/**
 * The account area (docs/console.md): sign-in, sign-up, sign-out and the language switch for
 * anyone; the dashboard with the authorizations the account granted, and the password change,
 * for a signed-in visit.
 */

const text: Messages<'noRevoke'> = {
  en: { noRevoke: 'No such authorization of your account.' },
  ja: { noRevoke: 'あなたのアカウントにそのような許可はありません。' },
};

type PasswordErrors = Partial<Record<PasswordField, string>>;

export async function accountArea(area: App, { ctx }: { ctx: AppContext }): Promise<void> {
  await area.register(signinRoutes, { ctx });
  await area.register(signupRoutes, { ctx });
  // The signed-in pages, behind the area's one gate.
  await area.register(async (scope: App) => {
    guardVisits(scope, ctx);
    dashboardRoutes(scope, ctx);
    passwordRoutes(scope, ctx);
  });
}

/** The dashboard, and revoking an authorization from it. */
function dashboardRoutes(scope: App, ctx: AppContext): void {
  scope.get<{ Querystring: QueryOf<'revoked'> }>(paths.account, async (request, reply) => {
    const { visit } = request;
    const id = visit.account.id;
    const [authorizations, keys, clients, sessions, limit, contracted] = await Promise.all([
      listAuthorizations(ctx.db, ctx.clock, id),
      countHeld(ctx.db, id, 'apiKeys'),
      countHeld(ctx.db, id, 'oauthClients'),
      listSessions(ctx.db, id, { status: 'open', limit: 1000 }),
      connectionLimit(ctx.db, id),
      contractedClassifications(ctx.db, id),
    ]);
    const counts = { keys, clients, openSessions: sessions.items.length, connectionLimit: limit };
    return sendPage(
      reply,
      200,
      renderAccountPage({
        lang: visit.lang,
        header: visit.header('dashboard', paths.account),
        email: visit.account.email,
        csrf: visit.csrf,
        authorizations,
        counts,
        contracted: contracted.size > 0,
        revokeAction: (grant) => visit.origin + pathOf(paths.revoke, grant),
        notice: request.query.revoked === '1' ? dashboardText[visit.lang].revoked : undefined,
      }),
    );
  });

  scope.post<{ Params: { id: string } }>(
    paths.revoke,
    { config: { returnTo: paths.account } },
    async (request, reply) => {
      const { visit } = request;
      const id = rowId(request.params.id);
      const revoked = id === null ? null : await revokeAuthorization(ctx.db, visit.account.id, id);
      if (!revoked) return sendErrorPage(reply, 404, text[visit.lang].noRevoke);
      await announceRevoked(ctx.bus, revoked);
      return sendRedirect(reply, `${visit.origin}${paths.account}?revoked=1`);
    },
  );
}

/** Field errors of a password change form (empty when both fields are acceptable). */
function passwordErrors(visit: Visit, current: string, next: string): PasswordErrors {
  const t = accountText[visit.lang];
  const errors: PasswordErrors = {};
  if (current.length === 0 || current.length > MAX_PASSWORD_LENGTH) errors.current = t.currentWrong;
  if (next.length < MIN_PASSWORD_LENGTH || next.length > MAX_PASSWORD_LENGTH) errors.next = t.passwordLength;
  return errors;
}

/** The password change (docs/console.md "Password change"). */
function passwordRoutes(scope: App, ctx: AppContext): void {
  function showPassword(
    reply: FastifyReply,
    status: number,
    visit: Visit,
    errors: PasswordErrors,
    notice?: string,
  ) {
    return sendPage(
      reply,
      status,
      renderPasswordPage({
        lang: visit.lang,
        header: visit.header('password', paths.password),
        action: visit.origin + paths.password,
        csrf: visit.csrf,
        errors,
        notice,
      }),
    );
  }

  /** Changes the password and ends the account's other sessions; false when `current` is wrong. */
  const change = (visit: Visit, current: string, next: string) =>
    ctx.db.tx(async (q) => {
      const ok = await changePassword(q, visit.account.id, current, next);
      if (ok) await deleteOtherSessions(q, visit.account.id, visit.session.digest);
      return ok;
    });

  scope.get<{ Querystring: QueryOf<'changed'> }>(paths.password, async (request, reply) => {
    const { visit } = request;
    const notice = request.query.changed === '1' ? accountText[visit.lang].changed : undefined;
    return showPassword(reply, 200, visit, {}, notice);
  });

  scope.post(paths.password, async (request, reply) => {
    const { visit } = request;
    const t = accountText[visit.lang];
    const form = checkedForm(request);
    const current = singleValue(form, 'current') ?? '';
    const next = singleValue(form, 'next') ?? '';
    const errors = passwordErrors(visit, current, next);
    if (Object.keys(errors).length > 0) return showPassword(reply, 400, visit, errors);
    // Guessing the current password is guessing a password: it counts against the sign-in limits.
    const email = visit.account.email;
    const { retryAfter } = await countPasswordAttempt(ctx, request, reply, email);
    if (retryAfter > 0) return showPassword(reply, 429, visit, { current: t.tooMany });
    if (!(await change(visit, current, next)))
      return showPassword(reply, 400, visit, { current: t.currentWrong });
    await forgivePasswordAttempt(ctx, request, email);
    return sendRedirect(reply, `${visit.origin}${paths.password}?changed=1`);
  });
}
