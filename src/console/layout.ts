import type { Lang, Messages } from './i18n.ts';
import { languages } from './i18n.ts';
import { markup, type SafeHtml } from './html.ts';
import { adminPaths, livePaths, paths } from './paths.ts';

/**
 * The page header of the console (navigation, account menu, language switch) and the pieces every
 * console page shares: times, field errors, a secret shown once.
 */

export type Section =
  'dashboard' | 'keys' | 'clients' | 'webhooks' | 'contracts' | 'sessions' | 'password' | 'live' | 'admin';

type ChromeKey =
  | 'skip'
  | 'nav'
  | 'dashboard'
  | 'keys'
  | 'clients'
  | 'webhooks'
  | 'contracts'
  | 'sessions'
  | 'live'
  | 'admin'
  | 'menu'
  | 'consoleMenu'
  | 'password'
  | 'signout'
  | 'signin'
  | 'signup'
  | 'language';

const text: Messages<ChromeKey> = {
  en: {
    skip: 'Skip to content',
    nav: 'Console',
    dashboard: 'Dashboard',
    keys: 'API keys',
    clients: 'OAuth clients',
    webhooks: 'Webhooks',
    contracts: 'Contracts',
    sessions: 'WebSocket sessions',
    live: 'Live',
    admin: 'Administration',
    menu: 'Account',
    consoleMenu: 'Menu',
    password: 'Change password',
    signout: 'Sign out',
    signin: 'Sign in',
    signup: 'Create an account',
    language: 'Language',
  },
  ja: {
    skip: '本文へ移動',
    nav: 'コンソール',
    dashboard: 'ダッシュボード',
    keys: 'APIキー',
    clients: 'OAuthクライアント',
    webhooks: 'Webhook',
    contracts: '契約',
    sessions: 'WebSocketセッション',
    live: 'ライブ',
    admin: '管理',
    menu: 'アカウント',
    consoleMenu: 'メニュー',
    password: 'パスワード変更',
    signout: 'サインアウト',
    signin: 'サインイン',
    signup: 'アカウント作成',
    language: '言語',
  },
};

const languageNames: Record<Lang, string> = { en: 'English', ja: '日本語' };

export interface HeaderView {
  lang: Lang;
  /** The path of this page, where the language switch returns to. */
  here: string;
  /** The signed-in account, or absent on pages for signed-out visitors. */
  origin: string;
  account?: { email: string; csrf: string; admin?: boolean };
  section?: Section;
  /** Offer the sign-up link (open sign-up) on signed-out pages. */
  signupOpen?: boolean;
  /** Only the name and the language switch (the consent page: nothing distracts from the decision). */
  minimal?: boolean;
}

function languageSwitch(lang: Lang, here: string, label: string): SafeHtml {
  const links = languages.map(
    (l) =>
      markup`<a href="${paths.lang}?to=${l}&amp;return_to=${encodeURIComponent(here)}" lang="${l}" hreflang="${l}"${
        l === lang ? markup` aria-current="true"` : null
      }>${languageNames[l]}</a>`,
  );
  return markup`<nav class="langs" aria-label="${label}">${links}</nav>`;
}

/**
 * The header holds one line at every width: on a wide screen the navigation and the account menu
 * are in the bar; on a narrow one (below 72rem, style.ts) they are hidden and the same links and
 * account items sit in a "Menu" disclosure (`<details>`: no script, a button for keyboards and
 * screen readers). Only one of the two is displayed, so only one is in the accessibility tree.
 */
export function header(v: HeaderView): SafeHtml {
  const t = text[v.lang];
  const link = (section: Section, href: string) =>
    markup`<li><a href="${href}"${v.section === section ? markup` aria-current="page"` : null}>${t[section]}</a></li>`;
  const links = v.account
    ? markup`${link('dashboard', paths.account)}${link('keys', paths.keys)}${link('clients', paths.clients)}${link('webhooks', paths.webhooks)}${link('contracts', paths.contracts)}${link('sessions', paths.sessions)}${link('live', livePaths.live)}${
        v.account.admin ? link('admin', adminPaths.status) : null
      }`
    : markup`<li><a href="${paths.signin}">${t.signin}</a></li>${
        v.signupOpen ? markup`<li><a href="${paths.signup}">${t.signup}</a></li>` : null
      }`;
  const accountItems = v.account
    ? markup`<p class="muted">${v.account.email}</p>
<p><a href="${paths.password}">${t.password}</a></p>
<form method="post" action="${v.origin + paths.signout}"><input type="hidden" name="csrf" value="${v.account.csrf}"><button type="submit" class="secondary">${t.signout}</button></form>`
    : null;
  const nav = (className: string) =>
    markup`<nav class="${className}" aria-label="${t.nav}"><ul>
${links}
</ul></nav>`;
  const wide = v.minimal
    ? null
    : markup`${nav('main wide')}
${
  accountItems
    ? markup`<details class="menu wide"><summary>${t.menu}</summary><div class="panel">
${accountItems}
</div></details>`
    : null
}`;
  const compact = v.minimal
    ? null
    : markup`<details class="menu compact"><summary>${t.consoleMenu}</summary><div class="panel">
${nav('main')}
${accountItems}
</div></details>`;
  return markup`<a class="skip" href="#main">${t.skip}</a>
<header class="top"><div class="bar">
<a class="brand" href="${paths.root}">Namazu</a>
${wide}
${languageSwitch(v.lang, v.here, t.language)}
${compact}
</div></header>`;
}

/** Japan's offset from UTC: Japan keeps no daylight saving time. */
const JST_OFFSET_MS = 9 * 3600_000;

/**
 * A time as the console shows it in both languages: Japan time (the time JMA's telegrams speak
 * in), to the minute, with the zone named; a dash for none.
 */
export function formatTime(d: Date | null, { seconds = false } = {}): string {
  if (d === null || Number.isNaN(d.getTime())) return '—';
  const iso = new Date(d.getTime() + JST_OFFSET_MS).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, seconds ? 19 : 16)} JST`;
}

/** The message beside a field, tied to it by aria-describedby (the input names `${id}-error`). */
export function fieldError(id: string, message: string | undefined): SafeHtml | null {
  return message ? markup`<p class="field-error" id="${id}-error">${message}</p>` : null;
}

/**
 * Attributes of an input whose value was refused, tied to its `fieldError`; with `hinted`, the input
 * also has a hint (`${id}-hint`) it is always described by.
 */
export function invalidAttrs(id: string, message: string | undefined, hinted = false): SafeHtml | null {
  const describedBy = [...(hinted ? [`${id}-hint`] : []), ...(message ? [`${id}-error`] : [])].join(' ');
  return markup`${message ? markup` aria-invalid="true"` : null}${describedBy ? markup` aria-describedby="${describedBy}"` : null}`;
}

/** What the last action did, announced to screen readers. */
export function notice(message: string | undefined): SafeHtml | null {
  return message ? markup`<p class="notice" role="status">${message}</p>` : null;
}

const copyText: Messages<'copy' | 'copied' | 'once'> = {
  en: { copy: 'Copy', copied: 'Copied.', once: 'This value is shown only now. Store it safely.' },
  ja: {
    copy: 'コピー',
    copied: 'コピーしました。',
    once: 'この値は今だけ表示されます。安全に保管してください。',
  },
};

/** A secret shown once, with a copy button (the button appears when the copy script runs). */
export function secretBox(id: string, label: string, value: string, lang: Lang): SafeHtml {
  const t = copyText[lang];
  return markup`<div class="card"><p><strong>${label}</strong></p>
<div class="secret"><code id="${id}">${value}</code>
<button type="button" class="secondary" hidden data-copy="${id}" data-status="${id}-status" data-done="${t.copied}">${t.copy}</button></div>
<p class="muted" id="${id}-status" role="status"></p>
<p class="alert">${t.once}</p></div>`;
}
