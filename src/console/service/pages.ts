import type { ContractListItem } from '../../accounts/contracts.ts';
import type { SocketSession } from '../../sessions/socket-sessions.ts';
import type { Lang, Messages } from '../i18n.ts';
import { markup, page, type SafeHtml } from '../html.ts';
import { formatTime, notice } from '../layout.ts';
import { pathOf, paths } from '../paths.ts';

/** The contracts page (every plan; apply, cancel) and the WebSocket sessions page (list; close). */

type ContractKey =
  | 'title'
  | 'intro'
  | 'limit'
  | 'plan'
  | 'classification'
  | 'price'
  | 'perDay'
  | 'perMonth'
  | 'connections'
  | 'status'
  | 'since'
  | 'running'
  | 'notContracted'
  | 'apply'
  | 'cancel'
  | 'applied'
  | 'cancelled'
  | 'unknownPlan';

export const contractsText: Messages<ContractKey> = {
  en: {
    title: 'Contracts',
    intro:
      'Each plan delivers one classification of telegrams and adds WebSocket connections. Prices are in yen.',
    limit: 'Simultaneous WebSocket connections allowed by your contracts:',
    plan: 'Plan',
    classification: 'Classification',
    price: 'Price',
    perDay: '/ day',
    perMonth: '/ month',
    connections: 'Connections',
    status: 'Status',
    since: 'since',
    running: 'Contracted',
    notContracted: 'Not contracted',
    apply: 'Apply',
    cancel: 'Cancel',
    applied: 'The contract was started.',
    cancelled: 'The contract was cancelled. Open sessions stop receiving its telegrams.',
    unknownPlan: 'No such plan.',
  },
  ja: {
    title: '契約',
    intro: '各プランは1つの分類の電文を配信し、WebSocket接続数を追加します。価格は円です。',
    limit: '契約で許可されるWebSocket同時接続数:',
    plan: 'プラン',
    classification: '分類',
    price: '価格',
    perDay: '/ 日',
    perMonth: '/ 月',
    connections: '接続数',
    status: '状態',
    since: '開始',
    running: '契約中',
    notContracted: '未契約',
    apply: '申し込む',
    cancel: '解約する',
    applied: '契約を開始しました。',
    cancelled: '契約を解約しました。接続中のセッションはその電文を受け取らなくなります。',
    unknownPlan: 'そのようなプランはありません。',
  },
};

export interface ContractsView {
  lang: Lang;
  header: SafeHtml;
  origin: string;
  csrf: string;
  items: ContractListItem[];
  limit: number;
  notice?: string;
}

export function renderContractsPage(v: ContractsView): string {
  const t = contractsText[v.lang];
  const rows = v.items.map((c) => {
    const action = v.origin + paths.contracts;
    const button = c.isValid
      ? markup`<button type="submit" name="action" value="cancel" class="danger" aria-label="${t.cancel}: ${c.plan.name}">${t.cancel}</button>`
      : markup`<button type="submit" name="action" value="apply" aria-label="${t.apply}: ${c.plan.name}">${t.apply}</button>`;
    return markup`<tr>
<td data-label="${t.plan}">${c.plan.name}</td>
<td data-label="${t.classification}"><code>${c.plan.classification}</code></td>
<td data-label="${t.price}">¥${c.plan.price.day} ${t.perDay} · ¥${c.plan.price.month} ${t.perMonth}</td>
<td data-label="${t.connections}">+${c.plan.connectionCounts}</td>
<td data-label="${t.status}">${c.isValid ? markup`<strong>${t.running}</strong> <span class="muted">(${t.since} ${formatTime(c.start)})</span>` : t.notContracted}</td>
<td><form method="post" action="${action}"><input type="hidden" name="csrf" value="${v.csrf}"><input type="hidden" name="plan" value="${c.plan.classification}">${button}</form></td>
</tr>`;
  });
  return page(
    t.title,
    markup`<h1>${t.title}</h1>
<p>${t.intro}</p>
${notice(v.notice)}
<p class="card">${t.limit} <strong id="connection-limit" class="figure">${v.limit}</strong></p>
<div class="table-wrap"><table class="stack">
<thead><tr><th>${t.plan}</th><th>${t.classification}</th><th>${t.price}</th><th>${t.connections}</th><th>${t.status}</th><th></th></tr></thead>
<tbody>${rows}</tbody></table></div>`,
    { lang: v.lang, header: v.header },
  );
}

type SessionKey =
  | 'title'
  | 'intro'
  | 'none'
  | 'status'
  | 'app'
  | 'classifications'
  | 'ip'
  | 'server'
  | 'start'
  | 'end'
  | 'ping'
  | 'close'
  | 'closed'
  | 'waiting'
  | 'open'
  | 'closedStatus'
  | 'usage';

export const sessionsText: Messages<SessionKey> = {
  en: {
    title: 'WebSocket sessions',
    intro:
      'Your most recent real-time sessions. Closing an open session ends its connection at once (close code 4808).',
    none: 'You have no WebSocket session.',
    status: 'Status',
    app: 'App name',
    classifications: 'Classifications',
    ip: 'IP address',
    server: 'Server',
    start: 'Started',
    end: 'Ended',
    ping: 'Last pong',
    close: 'Close',
    closed: 'The session was closed.',
    waiting: 'waiting',
    open: 'open',
    closedStatus: 'closed',
    usage: 'Open connections / allowed:',
  },
  ja: {
    title: 'WebSocketセッション',
    intro:
      '最近のリアルタイムセッションです。接続中のセッションを閉じると、その接続は直ちに終了します（クローズコード4808）。',
    none: 'WebSocketセッションはありません。',
    status: '状態',
    app: 'アプリ名',
    classifications: '分類',
    ip: 'IPアドレス',
    server: 'サーバー',
    start: '開始',
    end: '終了',
    ping: '最終pong',
    close: '閉じる',
    closed: 'セッションを閉じました。',
    waiting: '待機中',
    open: '接続中',
    closedStatus: '終了',
    usage: '接続中 / 上限:',
  },
};

export interface SessionsView {
  lang: Lang;
  header: SafeHtml;
  origin: string;
  csrf: string;
  sessions: SocketSession[];
  open: number;
  limit: number;
  notice?: string;
}

export function renderSessionsPage(v: SessionsView): string {
  const t = sessionsText[v.lang];
  const statusText = { waiting: t.waiting, open: t.open, closed: t.closedStatus };
  const rows = v.sessions.map(
    (s) => markup`<tr>
<td data-label="ID">#${s.id}</td>
<td data-label="${t.status}"><span class="tag">${statusText[s.status]}</span></td>
<td data-label="${t.app}">${s.appName ?? '—'}</td>
<td data-label="${t.classifications}">${s.classifications.join(', ')}</td>
<td data-label="${t.ip}">${s.ipAddress ?? '—'}</td>
<td data-label="${t.server}">${s.server ?? '—'}</td>
<td data-label="${t.start}">${formatTime(s.start)}</td>
<td data-label="${t.end}">${formatTime(s.end)}</td>
<td>${
      s.status === 'closed'
        ? null
        : markup`<form method="post" action="${v.origin + pathOf(paths.sessionClose, s.id)}"><input type="hidden" name="csrf" value="${v.csrf}"><button type="submit" class="danger" aria-label="${t.close} #${s.id}">${t.close}</button></form>`
    }</td>
</tr>`,
  );
  return page(
    t.title,
    markup`<h1>${t.title}</h1>
<p>${t.intro}</p>
${notice(v.notice)}
<p class="card">${t.usage} <strong class="figure">${v.open} / ${v.limit}</strong></p>
${
  rows.length === 0
    ? markup`<p>${t.none}</p>`
    : markup`<div class="table-wrap"><table class="stack"><thead><tr><th>ID</th><th>${t.status}</th><th>${t.app}</th><th>${t.classifications}</th><th>${t.ip}</th><th>${t.server}</th><th>${t.start}</th><th>${t.end}</th><th></th></tr></thead>
<tbody>${rows}</tbody></table></div>`
}`,
    { lang: v.lang, header: v.header },
  );
}
