import { createHash } from 'node:crypto';
import { assets } from './assets/routes.ts';
import type { Lang } from './i18n.ts';

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

export interface PageOptions {
  /** The language of the page's text (`<html lang>`). */
  lang?: Lang;
  /** The page header (console/layout.ts): navigation, account menu, language switch. */
  header?: SafeHtml;
  /** Narrow main column (forms such as sign-in). */
  narrow?: boolean;
  /** Loads the copy-button script (pages that show a secret once). */
  copyScript?: boolean;
  /** Loads the script of the scope presets (the API key form). */
  presetScript?: boolean;
}

/**
 * Every page: the stylesheet and the scripts are static files from 'self' (console/assets), so
 * the CSP allows no inline style or script but the form_post page's one hashed line.
 */
export function page(title: string, body: SafeHtml, opts: PageOptions = {}): string {
  const lang = opts.lang ?? 'en';
  return markup`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} · Namazu</title>
<link rel="stylesheet" href="${assets.style.path}">
${opts.copyScript ? markup`<script src="${assets.copy.path}" defer></script>` : null}
${opts.presetScript ? markup`<script src="${assets.presets.path}" defer></script>` : null}
</head>
<body>
${opts.header ?? null}
<main id="main"${opts.narrow ? markup` class="narrow"` : null}>
${body}
</main>
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
    "style-src 'self'",
    `form-action 'self'${(opts.formAction ?? []).map((s) => ' ' + s).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ];
  // A page with a hashed inline script (form_post) runs only that; every other page only the
  // console's own script files.
  directives.push(`script-src ${opts.scriptHashes?.length ? opts.scriptHashes.join(' ') : "'self'"}`);
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
