import type { FastifyReply, FastifyRequest } from 'fastify';
import { disableAccount, listAccounts } from '../../accounts/accounts.ts';
import { announceRevoked } from '../../auth/tokens.ts';
import type { AppContext } from '../../context.ts';
import { formOf, singleValue } from '../../http/form.ts';
import type { App } from '../../http/surface.ts';
import { recentConversionFailures } from '../../telegrams/conversion-failures.ts';
import { ingestTelegram } from '../../telegrams/ingest.ts';
import { countIngested } from '../../telegrams/ingest-metrics.ts';
import type { LiveFeed } from '../live/feed.ts';
import { sendLivePage } from '../live/layout.ts';
import { sessionCsrfValid } from '../signin-cookies.ts';
import { signedIn, type Visit } from '../visit.ts';
import { asWebScope, authOrigin, sendErrorPage, sendRedirect } from '../web.ts';
import { adminMessages } from './messages.ts';
import { renderAccountsPage, renderIngestPage, renderStatusPage } from './pages.ts';
import { adminPaths } from './paths.ts';
import { startStatus } from './status.ts';
import { registerAdminTools } from './tools.ts';

const ACCOUNTS_PAGE = 100;
const FAILURES_SHOWN = 20;
/** Room for the multipart framing and the CSRF field around a telegram of the ingest limit. */
const MULTIPART_OVERHEAD = 16 * 1024;

/**
 * The administration pages (docs/console-live.md "Administration"): service status, ingest a
 * telegram file through the one ingest pipeline, accounts list and disable. Anyone else signed in
 * gets 404, as if the pages did not exist.
 */
export async function registerAdminConsole(app: App, ctx: AppContext, feed: LiveFeed): Promise<void> {
  const status = startStatus(ctx.metrics);
  ctx.onShutdown.push(() => status.stop());

  await app.register(async (scope) => {
    asWebScope(scope);
    // The ingest form's file arrives as multipart/form-data: kept as bytes, read with the standard
    // FormData parser, under the ingest body limit of POST /admin/v1/telegrams.
    scope.addContentTypeParser(
      'multipart/form-data',
      { parseAs: 'buffer', bodyLimit: ctx.config.maxTelegramBytes + MULTIPART_OVERHEAD },
      (_request, body, done) => done(null, body),
    );

    /** An administrator's visit; otherwise null after a sign-in redirect or a 404 page. */
    async function administrator(request: FastifyRequest, reply: FastifyReply): Promise<Visit | null> {
      const visit = await signedIn(ctx, request, reply, adminPaths.status);
      if (!visit) return null;
      if (!visit.account.isAdmin) {
        void sendErrorPage(reply, 404, adminMessages[visit.lang].notFound);
        return null;
      }
      return visit;
    }
    const headerOf = (visit: Visit) => visit.header('admin', adminPaths.status);
    registerAdminTools(scope, ctx, administrator, headerOf);

    scope.get(adminPaths.status, async (request, reply) => {
      const visit = await administrator(request, reply);
      if (!visit) return reply;
      const figures = { ...(await status.read()), liveStreams: feed.size };
      const failures = await recentConversionFailures(ctx.db, FAILURES_SHOWN);
      return sendLivePage(reply, 200, renderStatusPage(visit.lang, headerOf(visit), figures, failures));
    });

    scope.get(adminPaths.ingest, async (request, reply) => {
      const visit = await administrator(request, reply);
      if (!visit) return reply;
      const { lang, csrf } = visit;
      return sendLivePage(reply, 200, renderIngestPage({ lang, header: headerOf(visit), csrf }));
    });

    // The file's form is checked before its body is read (docs/security.md "Credentials before
    // bodies"): the administrator's session, and the CSRF token, which the form carries in its
    // action's query for that reason. Anyone else is answered at once and holds no upload slot.
    const ingestVisits = new WeakMap<FastifyRequest, Visit>();
    const refuseBeforeBody = async (request: FastifyRequest, reply: FastifyReply) => {
      const visit = await administrator(request, reply);
      if (!visit) return reply;
      if (!sessionCsrfValid(ctx, visit.session, (request.query as Record<string, unknown>).csrf))
        return sendErrorPage(reply, 403, adminMessages[visit.lang].formExpired);
      ingestVisits.set(request, visit);
    };

    scope.post(
      adminPaths.ingest,
      { bodyLimit: ctx.config.maxTelegramBytes + MULTIPART_OVERHEAD, onRequest: refuseBeforeBody },
      async (request, reply) => {
        const visit = ingestVisits.get(request)!;
        const { lang, csrf } = visit;
        const text = adminMessages[lang];
        const show = (status: number, result: Parameters<typeof renderIngestPage>[0]['result']) =>
          sendLivePage(reply, status, renderIngestPage({ lang, header: headerOf(visit), csrf, result }));
        const form = await multipartForm(request);
        if (!form) return show(400, { kind: 'error', message: text.noFile });
        const file = form.get('telegram');
        if (!(file instanceof File) || file.size === 0)
          return show(400, { kind: 'error', message: text.noFile });
        if (file.size > ctx.config.maxTelegramBytes) {
          ctx.metrics.telegramsTooLarge.inc({ path: 'console' });
          request.log.warn({ bytes: file.size }, 'telegram refused: larger than the limit');
          return show(413, { kind: 'error', message: text.tooLarge });
        }
        const outcome = await ingestTelegram(ctx, Buffer.from(await file.arrayBuffer()), {
          receivedTime: ctx.clock.now(),
          fileName: file.name,
        });
        if (!outcome.ok) return show(400, { kind: 'error', message: outcome.reason });
        countIngested(ctx, outcome);
        return show(200, {
          kind: outcome.stored.duplicate ? 'duplicate' : 'stored',
          serial: outcome.stored.serial,
        });
      },
    );

    scope.get(adminPaths.accounts, async (request, reply) => {
      const visit = await administrator(request, reply);
      if (!visit) return reply;
      const { session, lang, csrf } = visit;
      const after = (request.query as Record<string, unknown>).after;
      const afterId = typeof after === 'string' && /^\d{1,15}$/.test(after) ? Number(after) : 0;
      const accounts = await listAccounts(ctx.db, afterId, ACCOUNTS_PAGE + 1);
      const disabled = (request.query as Record<string, unknown>).disabled === '1';
      return sendLivePage(
        reply,
        200,
        renderAccountsPage({
          lang,
          header: headerOf(visit),
          csrf,
          selfId: session.accountId,
          accounts: accounts.slice(0, ACCOUNTS_PAGE),
          nextAfter: accounts.length > ACCOUNTS_PAGE ? accounts[ACCOUNTS_PAGE - 1]!.id : null,
          notice: disabled ? adminMessages[lang].disabledNotice : undefined,
        }),
      );
    });

    scope.post(adminPaths.disable, async (request, reply) => {
      const visit = await administrator(request, reply);
      if (!visit) return reply;
      const { session } = visit;
      const text = adminMessages[visit.lang];
      const form = formOf(request);
      if (!form || !sessionCsrfValid(ctx, session, singleValue(form, 'csrf'))) {
        return sendErrorPage(reply, 403, text.formExpired);
      }
      const { id } = request.params as { id: string };
      if (!/^\d{1,15}$/.test(id)) return sendErrorPage(reply, 404, text.notFound);
      if (Number(id) === session.accountId) return sendErrorPage(reply, 400, text.selfDisable);
      const disabled = await disableAccount(ctx.db, Number(id));
      if (!disabled) return sendErrorPage(reply, 404, text.notFound);
      await announceRevoked(ctx.bus, disabled.revokedDigests);
      feed.close((c) => c.accountId === Number(id));
      return sendRedirect(reply, `${authOrigin(ctx, request)}${adminPaths.accounts}?disabled=1`);
    });
  });
}

/** The fields of a multipart/form-data body, or null when it is not one. */
async function multipartForm(request: FastifyRequest): Promise<FormData | null> {
  const type = request.headers['content-type'];
  if (!Buffer.isBuffer(request.body) || typeof type !== 'string' || !type.startsWith('multipart/form-data')) {
    return null;
  }
  try {
    return await new Response(request.body, { headers: { 'content-type': type } }).formData();
  } catch {
    return null;
  }
}
