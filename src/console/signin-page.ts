import { markup, page } from './html.ts';

export interface SigninView {
  action: string;
  csrf: string;
  returnTo: string;
  email?: string;
  error?: string;
}

export function renderSigninPage(v: SigninView): string {
  return page(
    'Sign in',
    markup`<h1>Sign in</h1>
${v.error ? markup`<p class="error" role="alert">${v.error}</p>` : null}
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="return_to" value="${v.returnTo}">
<label for="email">E-mail address</label>
<input id="email" type="email" name="email" value="${v.email ?? ''}" autocomplete="username" required maxlength="254">
<label for="password">Password</label>
<input id="password" type="password" name="password" autocomplete="current-password" required maxlength="1024">
<button type="submit">Sign in</button>
</form>`,
  );
}
