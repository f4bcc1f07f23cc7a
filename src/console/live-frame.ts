import type { FastifyReply } from 'fastify';
import { contentSecurityPolicy, markup, page, securityHeaders, type SafeHtml } from './html.ts';
import type { Lang } from './i18n.ts';
import { livePaths } from './paths.ts';

/**
 * A page of the live view, event, telegram or administration pages: the console's `page()` with
 * this part's stylesheet and script (served from 'self') and the page's language.
 */
export function livePage(lang: Lang, header: SafeHtml, title: string, body: SafeHtml): string {
  return page(
    title,
    markup`<link rel="stylesheet" href="${livePaths.style}">
${body}
<script src="${livePaths.script}" defer></script>`,
    { lang, header },
  );
}

/** The console's CSP, plus the event stream from 'self'. */
export function liveCsp(): string {
  return `${contentSecurityPolicy()}; connect-src 'self'`;
}

export function sendLivePage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .headers({ ...securityHeaders(), 'content-security-policy': liveCsp() })
    .type('text/html; charset=utf-8')
    .send(html);
}
