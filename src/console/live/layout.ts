import type { FastifyReply } from 'fastify';
import { contentSecurityPolicy, markup, page, securityHeaders, type SafeHtml } from '../html.ts';
import type { Lang } from '../i18n.ts';
import { livePaths } from './paths.ts';

/**
 * A page of the live view, event, telegram or administration pages: the console's `page()` with
 * this part's stylesheet and script (served from 'self') and the page's language.
 */
export function livePage(lang: Lang, title: string, body: SafeHtml): string {
  const html = page(
    title,
    markup`<link rel="stylesheet" href="${livePaths.style}">
${body}
<script src="${livePaths.script}" defer></script>`,
  );
  return html.replace('<html lang="en">', `<html lang="${lang}">`);
}

/** The console's CSP, plus this part's own assets and the event stream from 'self'. */
export function liveCsp(): string {
  return (
    contentSecurityPolicy({ scriptHashes: ["'self'"] }).replace('style-src ', "style-src 'self' ") +
    "; connect-src 'self'"
  );
}

export function sendLivePage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .headers({ ...securityHeaders(), 'content-security-policy': liveCsp() })
    .type('text/html; charset=utf-8')
    .send(html);
}
