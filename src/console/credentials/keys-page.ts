import type { ApiKeyListItem } from '../../accounts/api-keys.ts';
import { accountCaps } from '../../accounts/caps.ts';
import type { Lang, Messages } from '../i18n.ts';
import { markup, page, type SafeHtml } from '../html.ts';
import { formatTime, notice, secretBox } from '../layout.ts';
import { pathOf, paths } from '../paths.ts';
import { scopeFieldset, scopeTags } from '../scope-field.ts';
import { formAlert, newestField } from '../sent-again.ts';

type Key =
  | 'title'
  | 'intro'
  | 'none'
  | 'scopes'
  | 'created'
  | 'lastUsed'
  | 'never'
  | 'revoke'
  | 'create'
  | 'chooseScopes'
  | 'submit'
  | 'newKey'
  | 'revoked'
  | 'older'
  | 'newest'
  | 'cap'
  | 'sentAlready';

export const keysText: Messages<Key> = {
  en: {
    title: 'API keys',
    intro:
      'An API key lets your own programs call the data API and open WebSocket sessions with the scopes you choose.',
    none: 'You have no API key.',
    scopes: 'Scopes',
    created: 'Created',
    lastUsed: 'Last used',
    never: 'never',
    revoke: 'Revoke',
    create: 'Create an API key',
    chooseScopes: 'Scopes of the key',
    submit: 'Create key',
    newKey: 'Your new API key',
    revoked: 'The API key was revoked; it no longer works.',
    older: 'Older keys',
    newest: 'Newest keys',
    cap: `Your account holds ${accountCaps.apiKeys} API keys, its limit. Revoke one you no longer use to create another.`,
    sentAlready:
      'This form was sent already and made key #{id}, listed below; its value was shown then, and is not shown again. Nothing was created now. If you did not store the value, revoke that key and create another; to create a second one anyway, send this form.',
  },
  ja: {
    title: 'APIキー',
    intro: 'APIキーを使うと、選んだスコープでデータAPIの呼び出しやWebSocketセッションの開始ができます。',
    none: 'APIキーはありません。',
    scopes: 'スコープ',
    created: '作成日時',
    lastUsed: '最終使用',
    never: '未使用',
    revoke: '失効させる',
    create: 'APIキーを作成',
    chooseScopes: 'キーのスコープ',
    submit: 'キーを作成',
    newKey: '新しいAPIキー',
    revoked: 'APIキーを失効させました。もう使えません。',
    older: 'さらに古いキー',
    newest: '最新のキー',
    cap: `このアカウントのAPIキーは上限の${accountCaps.apiKeys}個です。使っていないキーを失効させてから作成してください。`,
    sentAlready:
      'このフォームは送信済みで、キー #{id} が作成されています(下の一覧にあります)。キーの値はそのときに表示したもので、再び表示されることはありません。今回は何も作成していません。値を保管していない場合は、そのキーを失効させて作成し直してください。それでも2つ目を作成する場合は、このフォームを送信してください。',
  },
};

export interface KeysView {
  lang: Lang;
  header: SafeHtml;
  origin: string;
  csrf: string;
  keys: ApiKeyListItem[];
  /** The cursor of the next (older) page, when there is one; whether this is a later page. */
  olderThan: number | null;
  laterPage: boolean;
  offered: string[];
  selected: ReadonlySet<string>;
  scopeError?: string;
  /** The value of a key just created (shown only in the answer to its creation). */
  created?: string;
  notice?: string;
  /** The id of the account's newest key as the form is drawn (0: none): sent-again.ts. */
  newest: number;
  /** A problem of the whole form (the form sent already). */
  alert?: string | SafeHtml;
}

export function renderKeysPage(v: KeysView): string {
  const t = keysText[v.lang];
  const rows = v.keys.map(
    (k) => markup`<tr>
<td data-label="ID">#${k.id}</td>
<td data-label="${t.scopes}">${scopeTags(k.scopes, v.lang)}</td>
<td data-label="${t.created}">${formatTime(k.createdAt)}</td>
<td data-label="${t.lastUsed}">${k.lastUsedAt ? formatTime(k.lastUsedAt) : t.never}</td>
<td><form method="post" action="${v.origin + pathOf(paths.keyRevoke, k.id)}"><input type="hidden" name="csrf" value="${v.csrf}"><button type="submit" class="danger" aria-label="${t.revoke} #${k.id}">${t.revoke}</button></form></td>
</tr>`,
  );
  const table =
    rows.length === 0
      ? markup`<p>${t.none}</p>`
      : markup`<div class="table-wrap"><table class="stack">
<thead><tr><th>ID</th><th>${t.scopes}</th><th>${t.created}</th><th>${t.lastUsed}</th><th></th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
  const pager =
    v.olderThan !== null || v.laterPage
      ? markup`<nav class="pager">${v.laterPage ? markup`<a href="${paths.keys}">${t.newest}</a> ` : null}${
          v.olderThan !== null
            ? markup`<a id="older-keys" href="${paths.keys}?before=${v.olderThan}">${t.older}</a>`
            : null
        }</nav>`
      : null;
  return page(
    t.title,
    markup`<h1>${t.title}</h1>
<p>${t.intro}</p>
${notice(v.notice)}
${v.created ? secretBox('new-key', t.newKey, v.created, v.lang) : null}
${table}
${pager}
<h2>${t.create}</h2>
${formAlert(v.alert)}
<div class="card"><form method="post" action="${v.origin + paths.keys}" novalidate>
<input type="hidden" name="csrf" value="${v.csrf}">
${newestField(v.newest)}
${scopeFieldset({ id: 'scopes', legend: t.chooseScopes, lang: v.lang, scopes: v.offered, selected: v.selected, error: v.scopeError, presets: true })}
<button type="submit">${t.submit}</button>
</form></div>`,
    { lang: v.lang, header: v.header, copyScript: v.created !== undefined, presetScript: true },
  );
}
