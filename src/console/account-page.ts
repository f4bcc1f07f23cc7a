import type { Authorization } from '../auth/authorizations.ts';
import { markup, page } from './html.ts';

export interface AccountView {
  email: string;
  csrf: string;
  authorizations: Authorization[];
  /** Form action that revokes the authorization with this id. */
  revokeAction: (id: number) => string;
  signoutAction: string;
  notice?: string;
}

export function renderAccountPage(v: AccountView): string {
  const rows = v.authorizations.map(
    (a) => markup`<tr>
<td>${a.clientName}<br><span class="muted">${a.clientId}</span></td>
<td>${a.scopes.join(' ')}</td>
<td>${a.createdAt.toISOString()}</td>
<td><form method="post" action="${v.revokeAction(a.id)}"><input type="hidden" name="csrf" value="${v.csrf}"><button type="submit">Revoke</button></form></td>
</tr>
`,
  );
  const table =
    rows.length === 0
      ? markup`<p>You have not authorized any application.</p>`
      : markup`<table>
<thead><tr><th>Application</th><th>Permissions</th><th>Authorized at</th><th></th></tr></thead>
<tbody>
${rows}</tbody>
</table>
<p class="muted">Revoking stops the application at once: its access and refresh tokens are deleted.</p>`;
  return page(
    'Your account',
    markup`<h1>Your account</h1>
<p>Signed in as ${v.email}.</p>
${v.notice ? markup`<p role="status">${v.notice}</p>` : null}
<h2>Applications you have authorized</h2>
${table}
<form method="post" action="${v.signoutAction}">
<input type="hidden" name="csrf" value="${v.csrf}">
<button type="submit">Sign out</button>
</form>`,
  );
}
