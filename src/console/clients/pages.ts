import { accountCaps } from '../../accounts/caps.ts';
import type { ManagedClient } from '../../issuer/client-management.ts';
import {
  GRANTS,
  type RegistrationField,
  type RegistrationProblem,
} from '../../issuer/client-registration.ts';
import { REFRESH_ROTATIONS } from '../../issuer/clients.ts';
import { rotatesRefreshTokens, type OperatorRefreshRotation } from '../../issuer/refresh-rotation.ts';
import type { Lang, Messages } from '../i18n.ts';
import { markup, page, safeHref, type SafeHtml } from '../html.ts';
import { fieldError, formatTime, invalidAttrs, notice, secretBox } from '../layout.ts';
import { pathOf, paths } from '../paths.ts';
import { scopeFieldset, scopeTags } from '../scope-field.ts';
import { formAlert, newestField } from '../sent-again.ts';

/** The OAuth clients of an account: list, register, view and edit, rotate the secret, delete. */

type Key =
  | 'title'
  | 'intro'
  | 'none'
  | 'register'
  | 'newTitle'
  | 'name'
  | 'type'
  | 'confidential'
  | 'public'
  | 'confidentialHint'
  | 'publicHint'
  | 'redirectUris'
  | 'redirectHint'
  | 'grants'
  | 'scopes'
  | 'refreshRotation'
  | 'rotation-default'
  | 'rotation-on'
  | 'rotation-off'
  | 'rotationHint'
  | 'rotationServer'
  | 'rotating'
  | 'notRotating'
  | 'contact'
  | 'contactHint'
  | 'appUrl'
  | 'termsUrl'
  | 'privacyUrl'
  | 'submitNew'
  | 'submitEdit'
  | 'edit'
  | 'clientId'
  | 'created'
  | 'secret'
  | 'rotate'
  | 'rotateHint'
  | 'delete'
  | 'deleteHint'
  | 'newSecret'
  | 'registered'
  | 'saved'
  | 'deleted'
  | 'fixedType'
  | 'check'
  | 'cap'
  | 'sentAlready'
  | 'sentAlreadyLink'
  | 'rotatedAlready';

export const clientsText: Messages<Key> = {
  en: {
    title: 'OAuth clients',
    intro: 'Register an application so that people can let it use their accounts through OAuth 2.0.',
    none: 'You have registered no OAuth client.',
    register: 'Register a client',
    newTitle: 'Register an OAuth client',
    name: 'Application name',
    type: 'Client type',
    confidential: 'Confidential',
    public: 'Public',
    confidentialHint: 'runs on a server that keeps a client secret',
    publicHint: 'a native or browser app that cannot keep a secret (PKCE is required)',
    redirectUris: 'Redirect URIs',
    redirectHint:
      'One per line: https, http on localhost or 127.0.0.1, or a private-use scheme such as com.example.app:/cb. No fragment (#).',
    grants: 'Flows used',
    scopes: 'Allowed scopes',
    refreshRotation: 'Refresh token rotation',
    'rotation-default': 'Server default',
    'rotation-on': 'On: each refresh returns a new refresh token and ends the one used',
    'rotation-off': 'Off: the refresh token stays the same (as on the production service)',
    rotationHint:
      'With rotation on, a refresh token used a second time ends the whole authorization (a copy was stolen, or the app lost the newer one), so the app must keep the newest refresh token it received. Public apps are better protected by sending DPoP proofs, which bind their refresh tokens to a key.',
    rotationServer: 'Server default now',
    rotating: 'on',
    notRotating: 'off',
    contact: 'Public contact of the maker',
    contactHint: 'An e-mail address or URL shown to people on the consent page.',
    appUrl: 'Application URL',
    termsUrl: 'Terms of use URL',
    privacyUrl: 'Privacy policy URL',
    submitNew: 'Register client',
    submitEdit: 'Save changes',
    edit: 'Edit',
    clientId: 'Client ID',
    created: 'Registered',
    secret: 'Client secret',
    rotate: 'Issue a new secret',
    rotateHint: 'The current secret stops working at once.',
    delete: 'Delete this client',
    deleteHint: 'Every token issued to it and every authorization given to it are deleted.',
    newSecret: 'Client secret',
    registered: 'The client was registered.',
    saved: 'The changes were saved.',
    deleted: 'The client was deleted; its tokens no longer work.',
    cap: `Your account holds ${accountCaps.oauthClients} OAuth clients, its limit. Delete one you no longer use to register another.`,
    fixedType: 'The type is fixed at registration.',
    check: 'Check this field:',
    sentAlready:
      "This form was sent already and its client registered; its secret was shown then, and is not shown again. Nothing was registered now. If you did not store the secret, issue a new one on the client's page; to register a second client anyway, send this form.",
    sentAlreadyLink: 'Open the client',
    rotatedAlready:
      'This button was sent already and a new secret issued; it was shown then, and is not shown again. Nothing changed now. If you did not store it, issue a new secret.',
  },
  ja: {
    title: 'OAuthクライアント',
    intro:
      'アプリケーションを登録すると、利用者はOAuth 2.0でそのアプリケーションにアカウントの利用を許可できます。',
    none: '登録したOAuthクライアントはありません。',
    register: 'クライアントを登録',
    newTitle: 'OAuthクライアントの登録',
    name: 'アプリケーション名',
    type: 'クライアントの種類',
    confidential: 'コンフィデンシャル',
    public: 'パブリック',
    confidentialHint: 'クライアントシークレットを保管できるサーバーで動作するもの',
    publicHint: 'シークレットを保管できないネイティブアプリやブラウザアプリ（PKCE必須）',
    redirectUris: 'リダイレクトURI',
    redirectHint:
      '1行に1つ。https、localhost または 127.0.0.1 の http、または com.example.app:/cb のようなプライベートスキーム。フラグメント（#）は不可。',
    grants: '使用するフロー',
    scopes: '許可するスコープ',
    refreshRotation: 'リフレッシュトークンのローテーション',
    'rotation-default': 'サーバーの既定値',
    'rotation-on': '有効: 更新のたびに新しいリフレッシュトークンを返し、使われたものを無効にする',
    'rotation-off': '無効: リフレッシュトークンは変わらない（本家サービスと同じ動作）',
    rotationHint:
      '有効にすると、一度使われたリフレッシュトークンが再び使われた場合（コピーが盗まれた、またはアプリが新しいトークンを失った）、その許可全体が取り消されます。アプリは受け取った最新のリフレッシュトークンを保管してください。パブリックなアプリには、リフレッシュトークンを鍵に結び付けるDPoPの証明を送るほうが安全です。',
    rotationServer: '現在のサーバー既定値',
    rotating: '有効',
    notRotating: '無効',
    contact: '作成者の公開連絡先',
    contactHint: '同意画面で利用者に表示されるメールアドレスまたはURL。',
    appUrl: 'アプリケーションのURL',
    termsUrl: '利用規約のURL',
    privacyUrl: 'プライバシーポリシーのURL',
    submitNew: 'クライアントを登録',
    submitEdit: '変更を保存',
    edit: '編集',
    clientId: 'クライアントID',
    created: '登録日時',
    secret: 'クライアントシークレット',
    rotate: '新しいシークレットを発行',
    rotateHint: '現在のシークレットは直ちに使えなくなります。',
    delete: 'このクライアントを削除',
    deleteHint: '発行済みのトークンと、このクライアントへの許可はすべて削除されます。',
    newSecret: 'クライアントシークレット',
    registered: 'クライアントを登録しました。',
    saved: '変更を保存しました。',
    deleted: 'クライアントを削除しました。そのトークンはもう使えません。',
    cap: `このアカウントのOAuthクライアントは上限の${accountCaps.oauthClients}個です。使っていないものを削除してから登録してください。`,
    fixedType: '種類は登録後に変更できません。',
    check: 'この項目を確認してください:',
    sentAlready:
      'このフォームは送信済みで、クライアントは登録されています。シークレットはそのときに表示したもので、再び表示されることはありません。今回は何も登録していません。シークレットを保管していない場合は、クライアントのページで新しいシークレットを発行してください。それでも2つ目を登録する場合は、このフォームを送信してください。',
    sentAlreadyLink: 'クライアントを開く',
    rotatedAlready:
      'このボタンは送信済みで、新しいシークレットは発行されています。シークレットはそのときに表示したもので、再び表示されることはありません。今回は何も変更していません。保管していない場合は、新しいシークレットを発行してください。',
  },
};

/** The label of each registration field in the page's language (also used in its error messages). */
export function fieldLabel(lang: Lang, field: RegistrationField): string {
  return clientsText[lang][field];
}

export interface ClientFormValues {
  name: string;
  type: string;
  redirectUris: string;
  grants: string[];
  scopes: string[];
  refreshRotation: string;
  contact: string;
  appUrl: string;
  termsUrl: string;
  privacyUrl: string;
}

export const emptyClientForm: ClientFormValues = {
  name: '',
  type: 'confidential',
  redirectUris: '',
  grants: ['authorization_code', 'refresh_token'],
  scopes: [],
  refreshRotation: 'default',
  contact: '',
  appUrl: '',
  termsUrl: '',
  privacyUrl: '',
};

export interface ClientFormView {
  lang: Lang;
  header: SafeHtml;
  origin: string;
  csrf: string;
  action: string;
  /** Editing an existing client: its type cannot change. */
  editing: boolean;
  values: ClientFormValues;
  offered: string[];
  /** Whose refresh tokens rotate when their client follows the server (NAMAZU_REFRESH_ROTATION). */
  operatorRotation: OperatorRefreshRotation;
  /** The fields that broke a rule, each with its message. */
  problems: readonly RegistrationProblem[];
  /** A problem of the whole form or button (the form sent already). */
  alert?: string | SafeHtml;
}

/** The registration form's view: the account's newest client as it is drawn (0: none), sent-again.ts. */
export interface NewClientFormView extends Omit<ClientFormView, 'editing'> {
  newest: number;
}

function clientForm(v: ClientFormView & { newest?: number }): SafeHtml {
  const t = clientsText[v.lang];
  const err = (field: RegistrationField) => {
    const message = v.problems.find((p) => p.field === field)?.message;
    return message === undefined ? undefined : `${t.check} ${message}`;
  };
  const text = (
    id: RegistrationField,
    label: string,
    value: string,
    type: string,
    options: { required?: boolean; hinted?: boolean } = {},
  ) =>
    markup`<label for="${id}">${label}</label>
<input id="${id}" type="${type}" name="${id}" value="${value}" maxlength="2000"${options.required ? markup` required` : null}${invalidAttrs(id, err(id), options.hinted)}>
${fieldError(id, err(id))}`;
  const typeField = v.editing
    ? markup`<p><strong>${t.type}:</strong> ${v.values.type === 'public' ? t.public : t.confidential} <span class="muted">(${t.fixedType})</span></p>`
    : markup`<fieldset id="type"${err('type') ? markup` aria-describedby="type-error"` : null}><legend>${t.type}</legend>
<label for="type-confidential"><input type="radio" id="type-confidential" name="type" value="confidential"${v.values.type === 'confidential' ? markup` checked` : null}> ${t.confidential} — <span class="muted">${t.confidentialHint}</span></label>
<label for="type-public"><input type="radio" id="type-public" name="type" value="public"${v.values.type === 'public' ? markup` checked` : null}> ${t.public} — <span class="muted">${t.publicHint}</span></label>
${fieldError('type', err('type'))}</fieldset>`;
  const grants = GRANTS.map(
    (g, i) =>
      markup`<label for="grant-${i}"><input type="checkbox" id="grant-${i}" name="grant" value="${g}"${
        v.values.grants.includes(g) ? markup` checked` : null
      }> <code>${g}</code></label>`,
  );
  return markup`<form method="post" action="${v.action}" novalidate>
<input type="hidden" name="csrf" value="${v.csrf}">
${v.newest === undefined ? null : newestField(v.newest)}
${text('name', t.name, v.values.name, 'text', { required: true })}
${typeField}
<label for="redirectUris">${t.redirectUris}</label>
<textarea id="redirectUris" name="redirectUris" rows="3"${invalidAttrs('redirectUris', err('redirectUris'), true)}>${v.values.redirectUris}</textarea>
<p class="hint" id="redirectUris-hint">${t.redirectHint}</p>
${fieldError('redirectUris', err('redirectUris'))}
<fieldset id="grants"${err('grants') ? markup` aria-describedby="grants-error"` : null}><legend>${t.grants}</legend>${grants}
${fieldError('grants', err('grants'))}</fieldset>
${scopeFieldset({ id: 'scopes', legend: t.scopes, lang: v.lang, scopes: v.offered, selected: new Set(v.values.scopes), error: err('scopes') })}
${rotationFieldset(v, err('refreshRotation'))}
${text('contact', t.contact, v.values.contact, 'text', { hinted: true })}
<p class="hint" id="contact-hint">${t.contactHint}</p>
${text('appUrl', t.appUrl, v.values.appUrl, 'url')}
${text('termsUrl', t.termsUrl, v.values.termsUrl, 'url')}
${text('privacyUrl', t.privacyUrl, v.values.privacyUrl, 'url')}
<button type="submit">${v.editing ? t.submitEdit : t.submitNew}</button>
</form>`;
}

/** What the server's default does for a client of this type, in words. */
function serverRotation(v: Pick<ClientFormView, 'lang' | 'operatorRotation'>, type: string): string {
  const t = clientsText[v.lang];
  const rotates = rotatesRefreshTokens(
    { type: type === 'public' ? 'public' : 'confidential', refreshRotation: 'default' },
    v.operatorRotation,
  );
  return rotates ? t.rotating : t.notRotating;
}

/** The refresh token rotation of a client: the server's default, on or off. */
function rotationFieldset(v: ClientFormView, error: string | undefined): SafeHtml {
  const t = clientsText[v.lang];
  const choices = REFRESH_ROTATIONS.map(
    (r) =>
      markup`<label for="refreshRotation-${r}"><input type="radio" id="refreshRotation-${r}" name="refreshRotation" value="${r}"${
        v.values.refreshRotation === r ? markup` checked` : null
      }> ${t[`rotation-${r}`]}</label>`,
  );
  const server = v.editing
    ? markup` <span class="muted">(${t.rotationServer}: ${serverRotation(v, v.values.type)})</span>`
    : null;
  return markup`<fieldset id="refreshRotation"${error ? markup` aria-describedby="refreshRotation-error"` : null}><legend>${t.refreshRotation}</legend>
${choices}
<p class="hint" id="refreshRotation-hint">${t.rotationHint}${server}</p>
${fieldError('refreshRotation', error)}</fieldset>`;
}

export function renderClientFormPage(v: NewClientFormView): string {
  const t = clientsText[v.lang];
  return page(
    t.newTitle,
    markup`<h1>${t.newTitle}</h1>
${formAlert(v.alert)}
<div class="card">${clientForm({ ...v, editing: false })}</div>`,
    { lang: v.lang, header: v.header },
  );
}

export interface ClientsView {
  lang: Lang;
  header: SafeHtml;
  clients: ManagedClient[];
  notice?: string;
}

export function renderClientsPage(v: ClientsView): string {
  const t = clientsText[v.lang];
  const rows = v.clients.map(
    (c) => markup`<tr>
<td data-label="${t.name}"><a href="${pathOf(paths.client, c.id)}">${c.name}</a></td>
<td data-label="${t.type}">${c.type === 'public' ? t.public : t.confidential}</td>
<td data-label="${t.clientId}"><code>${c.clientId}</code></td>
<td data-label="${t.scopes}">${scopeTags(c.scopes, v.lang)}</td>
<td data-label="${t.created}">${formatTime(c.createdAt)}</td>
</tr>`,
  );
  return page(
    t.title,
    markup`<h1>${t.title}</h1>
<p>${t.intro}</p>
${notice(v.notice)}
<p><a href="${paths.clientNew}">${t.register}</a></p>
${
  rows.length === 0
    ? markup`<p>${t.none}</p>`
    : markup`<div class="table-wrap"><table class="stack"><thead><tr><th>${t.name}</th><th>${t.type}</th><th>${t.clientId}</th><th>${t.scopes}</th><th>${t.created}</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}`,
    { lang: v.lang, header: v.header },
  );
}

export interface ClientView extends Omit<ClientFormView, 'editing' | 'action'> {
  client: ManagedClient;
  /** A secret just issued (registration or rotation), shown once. */
  secret?: string;
  notice?: string;
  /**
   * What the secret the page shows the client with is named by (`currentSecretMark`), sent with
   * "Issue a new secret": a secret issued since means the button was sent already (a reload).
   */
  secretMark: string | null;
}

export function renderClientPage(v: ClientView): string {
  const t = clientsText[v.lang];
  const c = v.client;
  const link = (value: string | null) => {
    const href = safeHref(value);
    return href ? markup`<a href="${href}" rel="noopener noreferrer">${href}</a>` : (value ?? '—');
  };
  const secretPart =
    c.type === 'confidential'
      ? markup`<h2>${t.secret}</h2>
<form method="post" action="${v.origin + pathOf(paths.clientSecret, c.id)}"><input type="hidden" name="csrf" value="${v.csrf}">
${v.secretMark === null ? null : markup`<input type="hidden" name="replaces" value="${v.secretMark}">`}
<p class="muted">${t.rotateHint}</p><button type="submit" class="secondary">${t.rotate}</button></form>`
      : null;
  return page(
    c.name,
    markup`<h1>${c.name}</h1>
${notice(v.notice)}
${formAlert(v.alert)}
${v.secret ? secretBox('new-secret', t.newSecret, v.secret, v.lang) : null}
<div class="card"><dl class="facts">
<dt>${t.clientId}</dt><dd><code id="client-id">${c.clientId}</code></dd>
<dt>${t.type}</dt><dd>${c.type === 'public' ? t.public : t.confidential}</dd>
<dt>${t.redirectUris}</dt><dd>${c.redirectUris.map((u) => markup`<code>${u}</code><br>`)}</dd>
<dt>${t.grants}</dt><dd>${c.grants.join(', ')}</dd>
<dt>${t.scopes}</dt><dd>${scopeTags(c.scopes, v.lang)}</dd>
<dt>${t.refreshRotation}</dt><dd id="refresh-rotation">${rotationFact(v)}</dd>
<dt>${t.contact}</dt><dd>${c.contact ?? '—'}</dd>
<dt>${t.appUrl}</dt><dd>${link(c.appUrl)}</dd>
<dt>${t.termsUrl}</dt><dd>${link(c.termsUrl)}</dd>
<dt>${t.privacyUrl}</dt><dd>${link(c.privacyUrl)}</dd>
<dt>${t.created}</dt><dd>${formatTime(c.createdAt)}</dd>
</dl></div>
${secretPart}
<h2>${t.edit}</h2>
<div class="card">${clientForm({ ...v, editing: true, action: v.origin + pathOf(paths.client, c.id) })}</div>
<h2>${t.delete}</h2>
<form method="post" action="${v.origin + pathOf(paths.clientDelete, c.id)}"><input type="hidden" name="csrf" value="${v.csrf}">
<p class="muted">${t.deleteHint}</p><button type="submit" class="danger">${t.delete}</button></form>`,
    { lang: v.lang, header: v.header, copyScript: v.secret !== undefined },
  );
}

/** Whether the client's refresh tokens rotate, and whether that is the server's default. */
function rotationFact(v: ClientView): string {
  const t = clientsText[v.lang];
  const { refreshRotation } = v.client;
  if (refreshRotation === 'on') return t.rotating;
  if (refreshRotation === 'off') return t.notRotating;
  return `${serverRotation(v, v.client.type)} (${t['rotation-default']})`;
}

/** The form values of a registered client (to edit it). */
export function formValuesOf(c: ManagedClient): ClientFormValues {
  return {
    name: c.name,
    type: c.type,
    redirectUris: c.redirectUris.join('\n'),
    grants: c.grants,
    scopes: c.scopes,
    refreshRotation: c.refreshRotation,
    contact: c.contact ?? '',
    appUrl: c.appUrl ?? '',
    termsUrl: c.termsUrl ?? '',
    privacyUrl: c.privacyUrl ?? '',
  };
}
