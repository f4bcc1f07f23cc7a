import type { AccountListItem } from '../../accounts/accounts.ts';
import type { ConversionFailureItem } from '../../telegrams/conversion-failures.ts';
import { markup, type SafeHtml } from '../html.ts';
import type { Lang } from '../i18n.ts';
import { formatTime } from '../layout.ts';
import { livePage } from '../live-frame.ts';
import { adminPaths, livePaths } from '../paths.ts';
import { adminMessages, type AdminText } from './messages.ts';
import type { ServiceStatus } from './status.ts';

/** The links between the administration pages. */
export function adminNav(text: AdminText): SafeHtml {
  return markup`<nav class="crumbs" aria-label="${text.adminTitle}"><a href="${adminPaths.status}">${text.status}</a> · <a href="${adminPaths.ingest}">${text.ingest}</a> · <a href="${adminPaths.accounts}">${text.accounts}</a> · <a href="${adminPaths.invite}">${text.invite}</a> · <a href="${adminPaths.scenario}">${text.scenario}</a></nav>`;
}

const ms = (seconds: number | null) =>
  seconds === null ? '—' : seconds === Infinity ? '> 1 s' : `${(seconds * 1000).toFixed(1)} ms`;

export function renderStatusPage(
  lang: Lang,
  header: SafeHtml,
  status: ServiceStatus & { liveStreams: number },
  failures: ConversionFailureItem[],
): string {
  const text = adminMessages[lang];
  const row = (name: string, value: string | number) =>
    markup`<tr><th scope="row">${name}</th><td>${value}</td></tr>`;
  const failureRows = failures.map(
    (f) =>
      markup`<tr><td data-label="#"><a href="${livePaths.telegram.replace(':serial', String(f.serial))}">${f.serial}</a></td><td data-label="type">${f.type}</td><td data-label="${text.schema}">${f.schema}</td><td data-label="time">${f.receivedTime}</td><td data-label="${text.reason}">${f.reason}</td></tr>`,
  );
  return livePage(
    lang,
    header,
    `${text.adminTitle}: ${text.status}`,
    markup`<div>
${adminNav(text)}
<h1>${text.status}</h1>
<table class="status-table" id="status"><tbody>
${row(text.openSockets, status.openSockets)}
${row(text.publicConnections, status.publicConnections)}
${row(text.liveStreams, status.liveStreams)}
${row(text.ingested, status.ingested)}
${row(text.ingestRate, status.ingestPerMinute === null ? '—' : status.ingestPerMinute.toFixed(1))}
${row(text.latencyCount, status.latency.count)}
${row(text.latencyMean, ms(status.latency.meanSeconds))}
${row(text.latencyP50, ms(status.latency.p50))}
${row(text.latencyP95, ms(status.latency.p95))}
${row(text.failuresCount, status.conversionFailures)}
</tbody></table>
<h2>${text.failures}</h2>
${
  failures.length === 0
    ? markup`<p>${text.noFailures}</p>`
    : markup`<div class="table-wrap"><table id="failures" class="stack"><thead><tr><th>#</th><th>type</th><th>${text.schema}</th><th>time</th><th>${text.reason}</th></tr></thead><tbody>${failureRows}</tbody></table></div>`
}
</div>`,
  );
}

export interface IngestView {
  lang: Lang;
  /** The console's page header (navigation, account menu, language switch). */
  header: SafeHtml;
  csrf: string;
  result?: { kind: 'stored' | 'duplicate'; serial: number } | { kind: 'error'; message: string };
}

export function renderIngestPage(v: IngestView): string {
  const text = adminMessages[v.lang];
  const r = v.result;
  const result = !r
    ? null
    : r.kind === 'error'
      ? markup`<p role="alert" class="error" id="ingest-result">${text.rejected}: ${r.message}</p>`
      : markup`<p role="status" id="ingest-result">${r.kind === 'stored' ? text.ingested1 : text.duplicate} <a href="${livePaths.telegram.replace(':serial', String(r.serial))}">${r.serial}</a></p>`;
  return livePage(
    v.lang,
    v.header,
    `${text.adminTitle}: ${text.ingest}`,
    markup`<div>
${adminNav(text)}
<h1>${text.ingest}</h1>
${result}
<form method="post" action="${adminPaths.ingest}?csrf=${v.csrf}" enctype="multipart/form-data">
<label for="telegram-file">${text.ingestFile}</label>
<input type="file" id="telegram-file" name="telegram" required>
<button type="submit">${text.ingestButton}</button>
</form>
</div>`,
  );
}

export interface AccountsView {
  lang: Lang;
  /** The console's page header (navigation, account menu, language switch). */
  header: SafeHtml;
  csrf: string;
  selfId: number;
  accounts: AccountListItem[];
  nextAfter: number | null;
  notice?: string;
}

/** The account's connection limit, set or cleared in place (empty: the plans' count). */
function limitForm(v: AccountsView, a: AccountListItem, text: AdminText): SafeHtml {
  const id = `limit-${a.id}`;
  return markup`<form method="post" action="${adminPaths.limit.replace(':id', String(a.id))}"><input type="hidden" name="csrf" value="${v.csrf}"><label class="sr" for="${id}">${text.connections} ${a.email}</label><input id="${id}" name="connections" inputmode="numeric" size="7" value="${a.connectionLimit ?? ''}" placeholder="${text.plansLimit}" title="${text.connectionsHint}"><button type="submit" aria-label="${text.setLimit} ${text.connections} ${a.email}">${text.setLimit}</button></form>`;
}

export function renderAccountsPage(v: AccountsView): string {
  const text = adminMessages[v.lang];
  const rows = v.accounts.map(
    (
      a,
    ) => markup`<tr data-account="${a.id}"><td data-label="#">${a.id}</td><td data-label="${text.email}">${a.email}</td><td data-label="${text.admin}">${a.isAdmin ? text.yes : text.no}</td><td data-label="${text.created}">${formatTime(a.createdAt)}</td><td data-label="${text.state}">${a.disabledAt ? text.disabled : text.active}</td>
<td data-label="${text.connections}">${limitForm(v, a, text)}</td>
<td>${
      a.disabledAt || a.id === v.selfId
        ? null
        : markup`<form method="post" action="${adminPaths.disable.replace(':id', String(a.id))}"><input type="hidden" name="csrf" value="${v.csrf}"><button type="submit" aria-label="${text.disable} ${a.email}">${text.disable}</button></form>`
    }</td></tr>`,
  );
  return livePage(
    v.lang,
    v.header,
    `${text.adminTitle}: ${text.accounts}`,
    markup`<div>
${adminNav(text)}
<h1>${text.accounts}</h1>
${v.notice ? markup`<p role="status">${v.notice}</p>` : null}
<div class="table-wrap"><table id="accounts" class="stack"><thead><tr><th>#</th><th>${text.email}</th><th>${text.admin}</th><th>${text.created}</th><th>${text.state}</th><th>${text.connections}</th><th><span class="sr">${text.disable}</span></th></tr></thead>
<tbody>${rows}</tbody></table></div>
${v.nextAfter !== null ? markup`<p><a href="${adminPaths.accounts}?after=${v.nextAfter}">${text.next}</a></p>` : null}
</div>`,
  );
}
