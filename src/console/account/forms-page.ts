import { firstAdministratorCommand } from '../../accounts/accounts.ts';
import type { Lang, Messages } from '../i18n.ts';
import { markup, page, type SafeHtml } from '../html.ts';
import { fieldError, invalidAttrs, notice } from '../layout.ts';

/** The sign-up and password-change pages. */

export type SignupField = 'email' | 'password' | 'name' | 'invitation';
export type PasswordField = 'current' | 'next';

type Key =
  | 'signupTitle'
  | 'invited'
  | 'closed'
  | 'noAdministrator'
  | 'name'
  | 'nameHint'
  | 'email'
  | 'password'
  | 'passwordHint'
  | 'create'
  | 'passwordTitle'
  | 'current'
  | 'next'
  | 'change'
  | 'othersEnd'
  | 'haveAccount'
  | 'signin';

export const accountFormText: Messages<Key> = {
  en: {
    signupTitle: 'Create an account',
    invited: 'You were invited to create an account.',
    closed:
      'Accounts are created by invitation only. Ask an administrator of this service for an invitation link.',
    noAdministrator:
      'This service has no administrator yet. Whoever runs it creates the first one on the server, in its directory (the server prints the exact command, with its data directory, when it starts):',
    name: 'Name (optional)',
    nameHint: 'Up to 100 characters.',
    email: 'E-mail address',
    password: 'Password',
    passwordHint: 'At least 8 characters.',
    create: 'Create account',
    passwordTitle: 'Change password',
    current: 'Current password',
    next: 'New password',
    change: 'Change password',
    othersEnd: 'Your other signed-in browsers are signed out; this one stays signed in.',
    haveAccount: 'Already have an account?',
    signin: 'Sign in',
  },
  ja: {
    signupTitle: 'アカウント作成',
    invited: 'アカウント作成に招待されています。',
    closed: 'アカウントは招待制です。このサービスの管理者に招待リンクを依頼してください。',
    noAdministrator:
      'このサービスにはまだ管理者がいません。運用者がサーバー上（Namazu のディレクトリ）で最初の管理者を作成します（データディレクトリを含む正確なコマンドは、サーバーの起動時に表示されます）：',
    name: '名前（任意）',
    nameHint: '100文字以内。',
    email: 'メールアドレス',
    password: 'パスワード',
    passwordHint: '8文字以上。',
    create: 'アカウントを作成',
    passwordTitle: 'パスワード変更',
    current: '現在のパスワード',
    next: '新しいパスワード',
    change: 'パスワードを変更',
    othersEnd: 'ほかのブラウザのサインインは終了します。このブラウザはサインインしたままです。',
    haveAccount: 'アカウントをお持ちの場合は',
    signin: 'サインイン',
  },
};

export interface SignupView {
  lang: Lang;
  header: SafeHtml;
  action: string;
  csrf: string;
  /** The invitation token, when signing up by invitation. */
  invitation: string | null;
  /** Sign-up is by invitation and none (valid) was given: no form, only how to get one. */
  closed: boolean;
  /** No administrator exists yet to invite anyone: the page says how the first is created. */
  noAdministrator: boolean;
  values: { email?: string; name?: string };
  errors: Partial<Record<SignupField, string>>;
  signinUrl: string;
}

export function renderSignupPage(v: SignupView): string {
  const t = accountFormText[v.lang];
  const e = v.errors;
  const body = v.closed
    ? v.noAdministrator && !e.invitation
      ? markup`<p class="alert" role="alert">${t.noAdministrator}</p>
<pre><code>${firstAdministratorCommand()}</code></pre>`
      : markup`<p class="alert" role="alert">${e.invitation ?? t.closed}</p>`
    : markup`${v.invitation ? markup`<p class="notice">${t.invited}</p>` : null}
${e.invitation ? markup`<p class="alert" role="alert">${e.invitation}</p>` : null}
<div class="card"><form method="post" action="${v.action}" novalidate>
<input type="hidden" name="csrf" value="${v.csrf}">
${v.invitation ? markup`<input type="hidden" name="invitation" value="${v.invitation}">` : null}
<label for="name">${t.name}</label>
<input id="name" type="text" name="name" value="${v.values.name ?? ''}" maxlength="100" autocomplete="name"${invalidAttrs('name', e.name)}>
${fieldError('name', e.name)}
<label for="email">${t.email}</label>
<input id="email" type="email" name="email" value="${v.values.email ?? ''}" required maxlength="254" autocomplete="username"${invalidAttrs('email', e.email)}>
${fieldError('email', e.email)}
<label for="password">${t.password}</label>
<input id="password" type="password" name="password" required minlength="8" maxlength="1024" autocomplete="new-password" ${invalidAttrs('password', e.password, true)}>
<p class="hint" id="password-hint">${t.passwordHint}</p>
${fieldError('password', e.password)}
<button type="submit">${t.create}</button>
</form></div>`;
  return page(
    t.signupTitle,
    markup`<h1>${t.signupTitle}</h1>
${body}
<p>${t.haveAccount} <a href="${v.signinUrl}">${t.signin}</a></p>`,
    { lang: v.lang, header: v.header, narrow: true },
  );
}

export interface PasswordView {
  lang: Lang;
  header: SafeHtml;
  action: string;
  csrf: string;
  errors: Partial<Record<PasswordField, string>>;
  notice?: string;
}

export function renderPasswordPage(v: PasswordView): string {
  const t = accountFormText[v.lang];
  const e = v.errors;
  return page(
    t.passwordTitle,
    markup`<h1>${t.passwordTitle}</h1>
${notice(v.notice)}
<div class="card"><form method="post" action="${v.action}" novalidate>
<input type="hidden" name="csrf" value="${v.csrf}">
<label for="current">${t.current}</label>
<input id="current" type="password" name="current" required maxlength="1024" autocomplete="current-password"${invalidAttrs('current', e.current)}>
${fieldError('current', e.current)}
<label for="next">${t.next}</label>
<input id="next" type="password" name="next" required minlength="8" maxlength="1024" autocomplete="new-password" ${invalidAttrs('next', e.next, true)}>
<p class="hint" id="next-hint">${t.passwordHint}</p>
${fieldError('next', e.next)}
<p class="muted">${t.othersEnd}</p>
<button type="submit">${t.change}</button>
</form></div>`,
    { lang: v.lang, header: v.header, narrow: true },
  );
}
