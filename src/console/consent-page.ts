import type { OAuthClient } from '../auth/clients.ts';
import { scopeDescriptions } from '../auth/scopes.ts';
import { markup, page, safeHref } from './html.ts';

export interface ConsentView {
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

function item(label: string, value: string | null) {
  const href = safeHref(value);
  if (href !== null)
    return markup`<li>${label}: <a href="${href}" rel="noopener noreferrer">${href}</a></li>`;
  return markup`<li>${label}: ${value ?? 'not given'}</li>`;
}

/** Names the client and what it asks for, in plain words; approve or deny. */
export function renderConsentPage(v: ConsentView): string {
  const c = v.client;
  return page(
    `Allow ${c.name}?`,
    markup`<h1>Allow <strong>${c.name}</strong> to use your account?</h1>
<p>Signed in as ${v.accountEmail}.</p>
<p>${c.name} asks to:</p>
<ul>
${v.scopes.map((s) => markup`<li>${scopeDescriptions[s] ?? s} <span class="muted">(${s})</span></li>\n`)}</ul>
<p>About this application:</p>
<ul>
${item('Maker contact', c.contact)}
${item('Application', c.appUrl)}
${item('Terms of use', c.termsUrl)}
${item('Privacy policy', c.privacyUrl)}
</ul>
<form method="post" action="${v.action}">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="request" value="${v.request}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
<form method="post" action="${v.signoutAction}">
<input type="hidden" name="csrf" value="${v.csrf}">
<input type="hidden" name="return_to" value="${v.signoutReturnTo}">
<button type="submit">Not you? Sign out</button>
</form>
<p class="muted">You can withdraw this permission at any time from <a href="${v.accountUrl}">your account page</a>.</p>`,
  );
}
