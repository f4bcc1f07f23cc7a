import type { Authorization } from '../../issuer/authorizations.ts';
import type { Lang, Messages } from '../i18n.ts';
import { markup, page, type SafeHtml } from '../html.ts';
import { formatTime, notice } from '../layout.ts';
import { paths } from '../paths.ts';

/** The dashboard: the account at a glance, and the authorizations it granted (revoke one). */
export interface AccountView {
  lang: Lang;
  header: SafeHtml;
  email: string;
  csrf: string;
  authorizations: Authorization[];
  counts: { keys: number; clients: number; openSessions: number; connectionLimit: number };
  /** Whether the account holds a contract: without one it receives nothing, and the page says where to start. */
  contracted: boolean;
  /** Form action that revokes the authorization with this id. */
  revokeAction: (id: number) => string;
  notice?: string;
}

type Key =
  | 'title'
  | 'signedInAs'
  | 'keys'
  | 'clients'
  | 'sessions'
  | 'manage'
  | 'authorizations'
  | 'none'
  | 'app'
  | 'scopes'
  | 'at'
  | 'revoke'
  | 'revokeHint'
  | 'noContract'
  | 'toContracts';

export const dashboardText: Messages<Key | 'revoked'> = {
  en: {
    title: 'Dashboard',
    signedInAs: 'Signed in as',
    keys: 'API keys',
    clients: 'OAuth clients',
    sessions: 'WebSocket connections (open / limit)',
    manage: 'Manage',
    authorizations: 'Applications you have authorized',
    none: 'You have not authorized any application.',
    app: 'Application',
    scopes: 'Permissions',
    at: 'Authorized at',
    revoke: 'Revoke',
    revokeHint: 'Revoking stops the application at once: its access and refresh tokens are deleted.',
    revoked: 'The authorization was revoked; its tokens no longer work.',
    noContract:
      'Your account has no contract yet, so it receives no telegram: the live view, the data API and WebSocket connections need a contracted plan.',
    toContracts: 'Choose a plan on the Contracts page',
  },
  ja: {
    title: 'ダッシュボード',
    signedInAs: 'サインイン中:',
    keys: 'APIキー',
    clients: 'OAuthクライアント',
    sessions: 'WebSocket接続（接続中 / 上限）',
    manage: '管理',
    authorizations: 'あなたが許可したアプリケーション',
    none: '許可したアプリケーションはありません。',
    app: 'アプリケーション',
    scopes: '権限',
    at: '許可日時',
    revoke: '取り消す',
    revokeHint:
      '取り消すとアプリケーションは直ちに停止します。アクセストークンとリフレッシュトークンは削除されます。',
    revoked: '許可を取り消しました。そのトークンはもう使えません。',
    noContract:
      'このアカウントにはまだ契約がないため、電文を受信できません。ライブ表示、データAPI、WebSocket接続にはプランの契約が必要です。',
    toContracts: '契約ページでプランを選ぶ',
  },
};

/** What an account without a contract sees first: why nothing arrives, and the way to the Contracts page. */
export function noContractPointer(why: string, link: string): SafeHtml {
  return markup`<div class="card pointer" id="no-contract"><p>${why}</p><p><a href="${paths.contracts}"><strong>${link}</strong></a></p></div>`;
}

export function renderAccountPage(v: AccountView): string {
  const t = dashboardText[v.lang];
  const rows = v.authorizations.map(
    (a) => markup`<tr>
<td data-label="${t.app}">${a.clientName}<br><span class="muted">${a.clientId}</span></td>
<td data-label="${t.scopes}">${a.scopes.join(' ')}</td>
<td data-label="${t.at}">${formatTime(a.createdAt)}</td>
<td><form method="post" action="${v.revokeAction(a.id)}"><input type="hidden" name="csrf" value="${v.csrf}"><button type="submit" class="danger" aria-label="${t.revoke}: ${a.clientName}">${t.revoke}</button></form></td>
</tr>
`,
  );
  const table =
    rows.length === 0
      ? markup`<p>${t.none}</p>`
      : markup`<div class="table-wrap"><table class="stack">
<thead><tr><th>${t.app}</th><th>${t.scopes}</th><th>${t.at}</th><th></th></tr></thead>
<tbody>
${rows}</tbody>
</table></div>
<p class="muted">${t.revokeHint}</p>`;
  const card = (label: string, figure: string, href: string) =>
    markup`<div class="card"><p>${label}</p><p class="figure">${figure}</p><p><a href="${href}">${t.manage}<span class="sr"> ${label}</span></a></p></div>`;
  return page(
    t.title,
    markup`<h1>${t.title}</h1>
<p>${t.signedInAs} ${v.email}.</p>
${notice(v.notice)}
${v.contracted ? null : noContractPointer(t.noContract, t.toContracts)}
<div class="cards">
${card(t.keys, String(v.counts.keys), paths.keys)}
${card(t.clients, String(v.counts.clients), paths.clients)}
${card(t.sessions, `${v.counts.openSessions} / ${v.counts.connectionLimit}`, paths.sessions)}
</div>
<h2 id="authorizations">${t.authorizations}</h2>
${table}`,
    { lang: v.lang, header: v.header },
  );
}
