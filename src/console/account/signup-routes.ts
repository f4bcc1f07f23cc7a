import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AccountError,
  createAccount,
  hasAdministrator,
  isEmailAddress,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  type Account,
} from '../../accounts/accounts.ts';
import { acceptInvitation, InvitationError, invitationProblem } from '../../accounts/invitations.ts';
import { SignupLimiter } from '../signin/signup-limits.ts';
import type { AppContext } from '../../context.ts';
import { formOf, singleValue } from '../../http/form.ts';
import type { App } from '../../http/surface.ts';
import { renderSignupPage, type SignupField } from './forms-page.ts';
import { accountText, MAX_NAME, retryHint } from './text.ts';
import { languageOf, type Lang } from '../i18n.ts';
import { header } from '../layout.ts';
import { paths } from '../paths.ts';
import { preSigninCsrf, preSigninCsrfValid, signIn } from '../signin/session-cookies.ts';
import type { QueryOf } from '../visit.ts';
import { authOrigin, sendErrorPage, sendPage, sendRedirect } from '../web.ts';
import { addressGroup } from '../../http/client-address.ts';

/** Sign-up, open or by invitation (docs/console.md "Sign-up"): the account area's page for newcomers. */

const MAX_EMAIL = 254;
const MAX_TOKEN = 200;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

type FieldErrors = Partial<Record<SignupField, string>>;

interface SignupInput {
  email: string;
  password: string;
  name: string;
}

interface SignupView {
  invitation: string | null;
  closed: boolean;
  values?: { email?: string; name?: string };
  errors?: FieldErrors;
}

/** Field errors of a sign-up form, in the page's language (empty when every field is acceptable). */
function signupErrors(lang: Lang, input: SignupInput): FieldErrors {
  const t = accountText[lang];
  const errors: FieldErrors = {};
  if (input.name.length > MAX_NAME || CONTROL.test(input.name)) errors.name = t.nameLength;
  if (input.email.length > MAX_EMAIL || !isEmailAddress(input.email)) errors.email = t.emailInvalid;
  if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH)
    errors.password = t.passwordLength;
  return errors;
}

/** The invitation token of a request, when one of acceptable shape was given. */
const tokenOf = (value: unknown) =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_TOKEN ? value : null;

/** Why an account could not be created, as field errors; rethrows anything else. */
function refusedFields(lang: Lang, err: unknown): FieldErrors {
  // A sign-up racing another for the same address loses at the unique index: the same answer.
  const duplicate = (err as { code?: unknown }).code === '23505';
  if (!(err instanceof AccountError) && !duplicate) throw err;
  const t = accountText[lang];
  if (!(err instanceof InvitationError)) return { email: t.emailTaken };
  return err.reason === 'other-email' ? { email: t.invitationOther } : { invitation: t.invitationInvalid };
}

async function showSignup(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  view: SignupView,
) {
  const lang = languageOf(request);
  const origin = authOrigin(ctx, request);
  const here = view.invitation
    ? `${paths.signup}?invitation=${encodeURIComponent(view.invitation)}`
    : paths.signup;
  return sendPage(
    reply,
    status,
    renderSignupPage({
      lang,
      header: header({ lang, origin, here, signupOpen: ctx.config.signup === 'open' }),
      action: origin + paths.signup,
      csrf: preSigninCsrf(ctx, request, reply),
      invitation: view.invitation,
      closed: view.closed,
      noAdministrator: view.closed && !(await hasAdministrator(ctx.db)),
      values: view.values ?? {},
      errors: view.errors ?? {},
      signinUrl: paths.signin,
    }),
  );
}

/** Creates the account (open sign-up, or by the invitation); field errors when it is refused. */
async function create(ctx: AppContext, lang: Lang, invitation: string | null, input: SignupInput) {
  const account = { email: input.email, password: input.password, name: input.name || null };
  try {
    return invitation
      ? await acceptInvitation(ctx.db, ctx.pepper, invitation, ctx.clock.now(), account)
      : await createAccount(ctx.db, account);
  } catch (err) {
    return { refused: refusedFields(lang, err) };
  }
}

/** Takes an open sign-up from the request's address; false after answering 429 over the limits. */
async function signupAllowed(
  signups: SignupLimiter,
  request: FastifyRequest,
  reply: FastifyReply,
  lang: Lang,
) {
  const wait = await signups.take(addressGroup(request.ip));
  if (wait <= 0) return true;
  reply.header('retry-after', String(wait));
  await sendErrorPage(reply, 429, accountText[lang].tooManySignups, { hint: retryHint(lang, wait) });
  return false;
}

export async function signupRoutes(scope: App, { ctx }: { ctx: AppContext }): Promise<void> {
  const open = ctx.config.signup === 'open';
  const signups = new SignupLimiter(ctx.db, ctx.pepper, ctx.clock);

  scope.get<{ Querystring: QueryOf<'invitation'> }>(paths.signup, async (request, reply) => {
    const invitation = tokenOf(request.query.invitation);
    if (invitation === null) return showSignup(ctx, request, reply, 200, { invitation: null, closed: !open });
    const problem = await invitationProblem(ctx.db, ctx.pepper, invitation, ctx.clock.now());
    if (!problem) return showSignup(ctx, request, reply, 200, { invitation, closed: false });
    const errors = { invitation: accountText[languageOf(request)].invitationInvalid };
    return showSignup(ctx, request, reply, 410, { invitation: null, closed: true, errors });
  });

  scope.post(paths.signup, async (request, reply) => {
    const lang = languageOf(request);
    const t = accountText[lang];
    const form = formOf(request);
    if (!form) return sendErrorPage(reply, 400, t.malformed);
    if (!preSigninCsrfValid(ctx, request, singleValue(form, 'csrf')))
      return sendErrorPage(reply, 403, t.csrf);
    const invitation = tokenOf(singleValue(form, 'invitation'));
    if (invitation === null && !open)
      return showSignup(ctx, request, reply, 403, { invitation: null, closed: true });
    const input = {
      email: (singleValue(form, 'email') ?? '').trim(),
      password: singleValue(form, 'password') ?? '',
      name: (singleValue(form, 'name') ?? '').trim(),
    };
    const values = { email: input.email.slice(0, MAX_EMAIL), name: input.name.slice(0, MAX_NAME) };
    const errors = signupErrors(lang, input);
    if (Object.keys(errors).length > 0)
      return showSignup(ctx, request, reply, 400, { invitation, closed: false, values, errors });
    if (invitation === null && !(await signupAllowed(signups, request, reply, lang))) return reply;
    const created: Account | { refused: FieldErrors } = await create(ctx, lang, invitation, input);
    if ('refused' in created) {
      const status = created.refused.invitation ? 410 : 400;
      return showSignup(ctx, request, reply, status, {
        invitation,
        closed: false,
        values,
        errors: created.refused,
      });
    }
    await signIn(ctx, request, reply, created.id);
    return sendRedirect(reply, authOrigin(ctx, request) + paths.account);
  });
}
