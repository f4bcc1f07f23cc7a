import { SafeHtml, markup, page, scriptHash, securityHeaders } from '../console/html.ts';
import type { AuthorizeErrorCode, Delivery } from './authorize-request.ts';
import { redirectSource } from './redirect-uri.ts';

/**
 * Delivery of an authorization response to the client's redirect URI in the chosen response mode.
 * Every response carries `iss` (RFC 9207) and, when the request's state was valid, `state`.
 */

export type AuthorizeReply =
  | { kind: 'redirect'; location: string; headers: Record<string, string> }
  | { kind: 'page'; html: string; headers: Record<string, string> };

const AUTO_SUBMIT = 'document.forms[0].submit();';
const AUTO_SUBMIT_HASH = scriptHash(AUTO_SUBMIT);

function withIssuerAndState(
  delivery: Delivery,
  issuer: string,
  first: [string, string][],
): [string, string][] {
  const out = [...first];
  if (delivery.state !== null) out.push(['state', delivery.state]);
  out.push(['iss', issuer]);
  return out;
}

function reply(delivery: Delivery, fields: [string, string][]): AuthorizeReply {
  if (delivery.mode === 'form_post') {
    const inputs = fields.map(
      ([name, value]) => markup`<input type="hidden" name="${name}" value="${value}">\n`,
    );
    const body = markup`<form method="post" action="${delivery.redirectUri}">
${inputs}<noscript><p>Continue to the application.</p><button type="submit">Continue</button></noscript>
</form>
<script>${new SafeHtml(AUTO_SUBMIT)}</script>`;
    return {
      kind: 'page',
      html: page('Returning to the application', body),
      headers: securityHeaders({
        formAction: [redirectSource(delivery.redirectUri)],
        scriptHashes: [AUTO_SUBMIT_HASH],
      }),
    };
  }
  const encoded = new URLSearchParams(fields).toString();
  const uri = delivery.redirectUri;
  let location: string;
  if (delivery.mode === 'fragment') location = `${uri}#${encoded}`;
  else if (!uri.includes('?')) location = `${uri}?${encoded}`;
  else location = uri.endsWith('?') || uri.endsWith('&') ? uri + encoded : `${uri}&${encoded}`;
  return { kind: 'redirect', location, headers: securityHeaders() };
}

export function successReply(delivery: Delivery, issuer: string, code: string): AuthorizeReply {
  return reply(delivery, withIssuerAndState(delivery, issuer, [['code', code]]));
}

export function errorReply(
  delivery: Delivery,
  issuer: string,
  error: AuthorizeErrorCode,
  description: string,
): AuthorizeReply {
  return reply(
    delivery,
    withIssuerAndState(delivery, issuer, [
      ['error', error],
      ['error_description', description],
    ]),
  );
}
