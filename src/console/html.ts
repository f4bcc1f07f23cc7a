import { createHash } from 'node:crypto';

/**
 * Server-rendered HTML with escaping by default: every value interpolated into `markup`…`` is
 * escaped unless it is itself the result of `markup` (a SafeHtml). Pages never build markup by
 * concatenation. The tag is deliberately not called `html`: formatters rewrite templates tagged
 * `html`, and the inline script of form_post is allowed by the hash of its exact bytes.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const escapes: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => escapes[c]!);
}

type Interpolation = SafeHtml | string | number | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function markup(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new SafeHtml(out);
}

/**
 * A URL fit for an `href`: only absolute http(s) URLs, so a registered "javascript:" or "data:"
 * value can never become a live link. Returns null for anything else.
 */
export function safeHref(value: string | null): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

/** The one stylesheet of every page; allowed by its hash in the CSP, so no 'unsafe-inline'. */
const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#222;line-height:1.5}' +
  'h1{font-size:1.4rem}label{display:block;margin:.6rem 0 .2rem}input[type=email],input[type=password]' +
  '{width:100%;padding:.4rem;box-sizing:border-box}button{margin:.8rem .6rem 0 0;padding:.4rem 1rem}' +
  '.error{color:#a00}.muted{color:#666;font-size:.9rem}table{border-collapse:collapse;width:100%}' +
  'td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left;vertical-align:top}';

const styleHash = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export function page(title: string, body: SafeHtml): string {
  return markup`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<style>${new SafeHtml(STYLE)}</style>
</head>
<body>
${body}
</body>
</html>
`.value;
}

export interface CspOptions {
  /** Extra `form-action` sources besides 'self' (e.g. the client's redirect origin). */
  formAction?: string[];
  /** Script hashes allowed to run (only the form_post auto-submit uses one). */
  scriptHashes?: string[];
}

export function contentSecurityPolicy(opts: CspOptions = {}): string {
  const directives = [
    "default-src 'none'",
    `style-src ${styleHash}`,
    `form-action 'self'${(opts.formAction ?? []).map((s) => ' ' + s).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ];
  if (opts.scriptHashes?.length) directives.push(`script-src ${opts.scriptHashes.join(' ')}`);
  return directives.join('; ');
}

/** Headers every page and every redirect of the authorization server carries. */
export function securityHeaders(opts: CspOptions = {}): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(opts),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    pragma: 'no-cache',
  };
}

export function scriptHash(script: string): string {
  return `'sha256-${createHash('sha256').update(script).digest('base64')}'`;
}
