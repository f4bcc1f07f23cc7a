import type { OAuthClient } from '../../issuer/clients.ts';
import type { Lang, Messages } from '../i18n.ts';
import { markup, page, safeHref, type SafeHtml } from '../html.ts';
import { scopeDescription } from '../scope-text.ts';

export interface ConsentView {
  lang?: Lang;
  header?: SafeHtml;
  action: string;
  csrf: string;
  /** The authorization request's query string, posted back with the decision and checked again. */
  request: string;
  client: OAuthClient;
  scopes: string[];
  /** Who is signed in, so the user knows which account grants access. */
  accountEmail: string;
  signoutAction: string;
  /** Where signing out leads back to: this authorization request, to sign in as someone else. */
  signoutReturnTo: string;
  accountUrl: string;
}

type Key =
  | 'title'
  | 'heading'
  | 'signedInAs'
  | 'asks'
  | 'about'
  | 'contact'
  | 'app'
  | 'terms'
  | 'privacy'
  | 'notGiven'
  | 'allow'
  | 'deny'
  | 'notYou'
  | 'withdraw'
  | 'accountPage';

const text: Messages<Key> = {
  en: {
    title: 'Allow {name}?',
    heading: 'Allow {name} to use your account?',
    signedInAs: 'Signed in as',
    asks: '{name} asks to:',
    about: 'About this application:',
    contact: 'Maker contact',
    app: 'Application',
    terms: 'Terms of use',
    privacy: 'Privacy policy',
    notGiven: 'not given',
    allow: 'Allow',
    deny: 'Deny',
    notYou: 'Not you? Sign out',
    withdraw: 'You can withdraw this permission at any time from',
    accountPage: 'your account page',
  },
  ja: {
    title: '{name} を許可しますか？',
    heading: '{name} にあなたのアカウントの利用を許可しますか？',
    signedInAs: 'サインイン中のアカウント:',
    asks: '{name} は次の権限を求めています:',
    about: 'このアプリケーションについて:',
    contact: '作成者の連絡先',
    app: 'アプリケーション',
    terms: '利用規約',
    privacy: 'プライバシーポリシー',
    notGiven: '記載なし',
    allow: '許可する',
    deny: '拒否する',
    notYou: '別のアカウントを使う（サインアウト）',
    withdraw: 'この許可はいつでも取り消せます:',
    accountPage: 'アカウントページ',
  },
};

function item(label: string, value: string | null, notGiven: string) {
  const href = safeHref(value);
  if (href !== null)
    return markup`<li>${label}: <a href="${href}" rel="noopener noreferrer">${href}</a></li>`;
  return markup`<li>${label}: ${value ?? notGiven}</li>`;
}

/** Names the client and what it asks for, in plain words; approve or deny. */
export function renderConsentPage(v: ConsentView): string {
  const c = v.client;
  const lang = v.lang ?? 'en';
  const t = text[lang];
  const [before = '', after = ''] = t.heading.split('{name}');
  // A function, not a string: a replacement string would read `$&`, `$'`… of the name as patterns.
  const named = (template: string) => template.replace('{name}', () => c.name);
  return page(
    named(t.title),
    markup`<h1>${before}<strong>${c.name}</strong>${after}</h1>
<p>${t.signedInAs} ${v.accountEmail}.</p>
<div class="card">
<p>${named(t.asks)}</p>
<ul>
${v.scopes.map((s) => markup`<li>${scopeDescription(s, lang)} <span class="muted">(${s})</span></li>\n`)}</ul>
<p>${t.about}</p>
<ul>
${item(t.contact, c.contact, t.notGiven)}
${item(t.app, c.appUrl, t.notGiven)}
${item(t.terms, c.termsUrl, t.notGiven)}
${item(t.privacy, c.privacyUrl, t.notGiven)}
</ul>
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="request" value="${v.request}">
<button type="submit" name="decision" value="approve">${t.allow}</button>
<button type="submit" name="decision" value="deny" class="secondary">${t.deny}</button>
</form>
</div>
<form method="post" action="${v.signoutAction}">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="return_to" value="${v.signoutReturnTo}">
<button type="submit" class="link">${t.notYou}</button>
</form>
<p class="muted">${t.withdraw} <a href="${v.accountUrl}">${t.accountPage}</a>.</p>`,
    { lang, header: v.header, narrow: true },
  );
}
