import type { Lang, Messages } from '../i18n.ts';
import { markup, page, type SafeHtml } from '../html.ts';
import { notice } from '../layout.ts';

export interface SigninView {
  lang: Lang;
  header: SafeHtml;
  action: string;
  csrf: string;
  returnTo: string;
  email?: string;
  error?: string;
  /** Where to create an account, when sign-up is open. */
  signupUrl?: string;
  /** A notice above the form (e.g. after a password change or a sign-up). */
  notice?: string;
}

export type SigninKey = 'title' | 'email' | 'password' | 'submit' | 'noAccount' | 'signup';

export const signinText: Messages<SigninKey> = {
  en: {
    title: 'Sign in',
    email: 'E-mail address',
    password: 'Password',
    submit: 'Sign in',
    noAccount: 'No account yet?',
    signup: 'Create one',
  },
  ja: {
    title: 'サインイン',
    email: 'メールアドレス',
    password: 'パスワード',
    submit: 'サインイン',
    noAccount: 'アカウントをお持ちでない場合は',
    signup: 'こちらから作成',
  },
};

export function renderSigninPage(v: SigninView): string {
  const t = signinText[v.lang];
  return page(
    t.title,
    markup`<h1>${t.title}</h1>
${notice(v.notice)}
${v.error ? markup`<p class="error" role="alert" id="signin-error">${v.error}</p>` : null}
<div class="card">
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="return_to" value="${v.returnTo}">
<label for="email">${t.email}</label>
<input id="email" type="email" name="email" value="${v.email ?? ''}" autocomplete="username" required maxlength="254"${v.error ? markup` aria-describedby="signin-error"` : null}>
<label for="password">${t.password}</label>
<input id="password" type="password" name="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">${t.submit}</button>
</form>
</div>
${v.signupUrl ? markup`<p>${t.noAccount} <a href="${v.signupUrl}">${t.signup}</a></p>` : null}`,
    { lang: v.lang, header: v.header, narrow: true },
  );
}
