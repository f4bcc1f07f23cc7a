import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  AccountError,
  changePassword,
  createAccount,
  isEmailAddress,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
} from '../accounts/accounts.ts';
import { acceptInvitation, InvitationError, invitationProblem } from '../accounts/invitations.ts';
import { deleteOtherSessions } from '../auth/signin-sessions.ts';
import { SignupLimiter } from '../auth/signup-limits.ts';
import type { AppContext } from '../context.ts';
import { formOf, singleValue } from '../http/form.ts';
import type { App } from '../http/surface.ts';
import {
  renderPasswordPage,
  renderSignupPage,
  type PasswordField,
  type SignupField,
} from './account-forms-page.ts';
import { languageOf, type Lang, type Messages } from './i18n.ts';
import { header, paths } from './layout.ts';
import { countPasswordAttempt, forgivePasswordAttempt } from './password-attempts.ts';
import { preSigninCsrf, preSigninCsrfValid, signIn } from './signin-cookies.ts';
import { postedForm, signedIn } from './visit.ts';
import { authOrigin, sendErrorPage, sendPage, sendRedirect } from './web.ts';

/** Sign-up (open, or by invitation: docs/console.md "Sign-up") and the password change. */

const MAX_NAME = 100;
const MAX_EMAIL = 254;
const MAX_TOKEN = 200;

type Key =
  | 'emailInvalid'
  | 'emailTaken'
  | 'passwordLength'
  | 'nameLength'
  | 'invitationInvalid'
  | 'invitationOther'
  | 'currentWrong'
  | 'changed'
  | 'tooMany'
  | 'tooManySignups'
  | 'malformed'
  | 'csrf';

const text: Messages<Key> = {
  en: {
    emailInvalid: 'Enter an e-mail address such as name@example.com (at most 254 characters).',
    emailTaken: 'An account with this e-mail address exists already. Sign in instead.',
    passwordLength: `The password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`,
    nameLength: `The name must be at most ${MAX_NAME} printable characters.`,
    invitationInvalid:
      'This invitation link is not valid: it was used, has expired or is mistyped. Ask for a new one.',
    invitationOther: 'This invitation is for another e-mail address.',
    currentWrong: 'The current password is wrong.',
    changed: 'Your password was changed. Your other signed-in browsers were signed out.',
    tooMany: 'Too many attempts with a wrong password. Try again later.',
    tooManySignups: 'Too many accounts were created from your address or on this service just now.',
    malformed: 'The form was malformed.',
    csrf: 'The form expired or was not sent from this site. Go back, reload the page and try again.',
  },
  ja: {
    emailInvalid: 'name@example.com のようなメールアドレスを入力してください（254文字以内）。',
    emailTaken: 'このメールアドレスのアカウントは既にあります。サインインしてください。',
    passwordLength: `パスワードは${MIN_PASSWORD_LENGTH}〜${MAX_PASSWORD_LENGTH}文字にしてください。`,
    nameLength: `名前は${MAX_NAME}文字以内の印字可能な文字にしてください。`,
    invitationInvalid:
      'この招待リンクは無効です（使用済み・期限切れ・入力誤り）。新しいリンクを依頼してください。',
    invitationOther: 'この招待は別のメールアドレス宛てです。',
    currentWrong: '現在のパスワードが違います。',
    changed: 'パスワードを変更しました。ほかのブラウザのサインインは終了しました。',
    tooMany: '誤ったパスワードでの試行が多すぎます。しばらくしてからお試しください。',
    tooManySignups: 'あなたのアドレスから、またはこのサービスで、短時間に作成されたアカウントが多すぎます。',
    malformed: 'フォームの形式が正しくありません。',
    csrf: 'フォームの有効期限が切れたか、このサイトから送信されていません。戻ってページを再読み込みし、もう一度お試しください。',
  },
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** When to try again, in the page's language. */
function retryHint(lang: Lang, seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  return lang === 'ja'
    ? `${minutes}分後にもう一度お試しください。`
    : `Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** Field errors of a sign-up form, in the page's language (empty when every field is acceptable). */
function signupErrors(lang: Lang, input: { email: string; password: string; name: string }) {
  const t = text[lang];
  const errors: Partial<Record<SignupField, string>> = {};
  if (input.name.length > MAX_NAME || CONTROL.test(input.name)) errors.name = t.nameLength;
  if (input.email.length > MAX_EMAIL || !isEmailAddress(input.email)) errors.email = t.emailInvalid;
  if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH)
    errors.password = t.passwordLength;
  return errors;
}

export async function registerAccountRoutes(scope: App, ctx: AppContext): Promise<void> {
  const open = ctx.config.signup === 'open';
  const signups = new SignupLimiter(ctx.db, ctx.pepper, ctx.clock);

  function showSignup(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    view: {
      invitation: string | null;
      closed: boolean;
      values?: { email?: string; name?: string };
      errors?: Partial<Record<SignupField, string>>;
    },
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
        header: header({ lang, origin, here, signupOpen: open }),
        action: origin + paths.signup,
        csrf: preSigninCsrf(ctx, request, reply),
        invitation: view.invitation,
        closed: view.closed,
        values: view.values ?? {},
        errors: view.errors ?? {},
        signinUrl: paths.signin,
      }),
    );
  }

  /** The invitation token of a request, when one of acceptable shape was given. */
  const tokenOf = (value: unknown) =>
    typeof value === 'string' && value.length > 0 && value.length <= MAX_TOKEN ? value : null;

  scope.get(paths.signup, async (request, reply) => {
    const lang = languageOf(request);
    const invitation = tokenOf((request.query as Record<string, unknown>).invitation);
    if (invitation !== null) {
      const problem = await invitationProblem(ctx.db, ctx.pepper, invitation, ctx.clock.now());
      if (problem)
        return showSignup(request, reply, 410, {
          invitation: null,
          closed: true,
          errors: { invitation: text[lang].invitationInvalid },
        });
      return showSignup(request, reply, 200, { invitation, closed: false });
    }
    return showSignup(request, reply, 200, { invitation: null, closed: !open });
  });

  scope.post(paths.signup, async (request, reply) => {
    const lang = languageOf(request);
    const t = text[lang];
    const form = formOf(request);
    if (!form) return sendErrorPage(reply, 400, t.malformed, undefined, lang);
    if (!preSigninCsrfValid(ctx, request, singleValue(form, 'csrf')))
      return sendErrorPage(reply, 403, t.csrf, undefined, lang);
    const invitation = tokenOf(singleValue(form, 'invitation'));
    if (invitation === null && !open)
      return showSignup(request, reply, 403, { invitation: null, closed: true });
    const input = {
      email: (singleValue(form, 'email') ?? '').trim(),
      password: singleValue(form, 'password') ?? '',
      name: (singleValue(form, 'name') ?? '').trim(),
    };
    const values = { email: input.email.slice(0, MAX_EMAIL), name: input.name.slice(0, MAX_NAME) };
    const errors = signupErrors(lang, input);
    if (Object.keys(errors).length > 0)
      return showSignup(request, reply, 400, { invitation, closed: false, values, errors });
    if (invitation === null) {
      const wait = await signups.take(request.ip);
      if (wait > 0) {
        reply.header('retry-after', String(wait));
        return sendErrorPage(reply, 429, t.tooManySignups, retryHint(lang, wait), lang);
      }
    }
    const account = { email: input.email, password: input.password, name: input.name || null };
    let created;
    try {
      created = invitation
        ? await acceptInvitation(ctx.db, ctx.pepper, invitation, ctx.clock.now(), account)
        : await createAccount(ctx.db, account);
    } catch (err) {
      // A sign-up racing another for the same address loses at the unique index: the same answer.
      const duplicate = (err as { code?: unknown }).code === '23505';
      if (!(err instanceof AccountError) && !duplicate) throw err;
      const refused: Partial<Record<SignupField, string>> =
        err instanceof InvitationError
          ? err.reason === 'other-email'
            ? { email: t.invitationOther }
            : { invitation: t.invitationInvalid }
          : { email: t.emailTaken };
      return showSignup(request, reply, refused.invitation ? 410 : 400, {
        invitation,
        closed: false,
        values,
        errors: refused,
      });
    }
    await signIn(ctx, request, reply, created.id);
    return sendRedirect(reply, authOrigin(ctx, request) + paths.account);
  });

  function showPassword(
    reply: FastifyReply,
    status: number,
    visit: NonNullable<Awaited<ReturnType<typeof signedIn>>>,
    errors: Partial<Record<PasswordField, string>>,
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

  scope.get(paths.password, async (request, reply) => {
    const visit = await signedIn(ctx, request, reply, paths.password);
    if (!visit) return reply;
    const changed = (request.query as Record<string, unknown>).changed === '1';
    return showPassword(reply, 200, visit, {}, changed ? text[visit.lang].changed : undefined);
  });

  scope.post(paths.password, async (request, reply) => {
    const posted = await postedForm(ctx, request, reply, paths.password);
    if (!posted) return reply;
    const { visit, form } = posted;
    const t = text[visit.lang];
    const current = singleValue(form, 'current') ?? '';
    const next = singleValue(form, 'next') ?? '';
    const errors: Partial<Record<PasswordField, string>> = {};
    if (current.length === 0 || current.length > MAX_PASSWORD_LENGTH) errors.current = t.currentWrong;
    if (next.length < MIN_PASSWORD_LENGTH || next.length > MAX_PASSWORD_LENGTH)
      errors.next = t.passwordLength;
    if (Object.keys(errors).length > 0) return showPassword(reply, 400, visit, errors);
    // Guessing the current password is guessing a password: it counts against the sign-in limits.
    const email = visit.account.email;
    const { retryAfter } = await countPasswordAttempt(ctx, request, reply, email);
    if (retryAfter > 0) return showPassword(reply, 429, visit, { current: t.tooMany });
    const changed = await ctx.db.tx(async (q) => {
      const ok = await changePassword(q, visit.account.id, current, next);
      if (ok) await deleteOtherSessions(q, visit.account.id, visit.session.digest);
      return ok;
    });
    if (!changed) return showPassword(reply, 400, visit, { current: t.currentWrong });
    await forgivePasswordAttempt(ctx, request, email);
    return sendRedirect(reply, `${visit.origin}${paths.password}?changed=1`);
  });
}
