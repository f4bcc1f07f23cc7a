import type { FastifyReply, FastifyRequest } from 'fastify';
import { disableAccount, listAccounts } from '../../accounts/accounts.ts';
import { announceRevoked } from '../../issuer/tokens.ts';
import type { AppContext } from '../../context.ts';
import { onStop } from '../../http/stop.ts';
import type { App } from '../../http/surface.ts';
import { recentConversionFailures } from '../../telegrams/conversion-failures.ts';
import { sendLivePage } from '../live-frame.ts';
import type { LiveStreams } from '../live-streams.ts';
import { adminPaths } from '../paths.ts';
import { guardVisits, type QueryOf } from '../visit.ts';
import { authOrigin, sendErrorPage, sendRedirect } from '../web.ts';
import { adminGate } from './gate.ts';
import { registerIngestPage } from './ingest.ts';
import { registerConnectionLimit } from './limits.ts';
import { adminMessages, type AdminText } from './messages.ts';
import { renderAccountsPage, renderStatusPage } from './pages.ts';
import { startStatus } from './status.ts';
import { registerAdminTools } from './tools.ts';

const ACCOUNTS_PAGE = 100;
const FAILURES_SHOWN = 20;

/**
 * The administration area (docs/console-live.md "Administration"): service status, ingest a
 * telegram file through the one ingest pipeline, accounts list and disable, invitations and
 * scenarios. Anyone else signed in gets 404, as if the pages did not exist.
 */
export async function adminArea(area: App, { ctx, streams }: { ctx: AppContext; streams: LiveStreams }) {
  const status = startStatus(ctx.metrics);
  onStop(area, 'onClose', () => status.stop());
  guardVisits(area, ctx, adminGate(ctx, 'form'));
  registerIngestPage(area, ctx);
  registerAdminTools(area, ctx);
  registerConnectionLimit(area, ctx);

  area.get(adminPaths.status, async (request, reply) => {
    const { visit } = request;
    const figures = { ...(await status.read()), liveStreams: streams.size };
    const failures = await recentConversionFailures(ctx.db, FAILURES_SHOWN);
    const header = visit.header('admin', adminPaths.status);
    return sendLivePage(reply, 200, renderStatusPage(visit.lang, header, figures, failures));
  });

  area.get<{ Querystring: QueryOf<'after' | 'disabled' | 'limit'> }>(
    adminPaths.accounts,
    async (request, reply) => {
      const { session, lang, csrf } = request.visit;
      const { after } = request.query;
      const afterId = typeof after === 'string' && /^\d{1,15}$/.test(after) ? Number(after) : 0;
      const accounts = await listAccounts(ctx.db, afterId, ACCOUNTS_PAGE + 1);
      return sendLivePage(
        reply,
        200,
        renderAccountsPage({
          lang,
          header: request.visit.header('admin', adminPaths.status),
          csrf,
          selfId: session.accountId,
          accounts: accounts.slice(0, ACCOUNTS_PAGE),
          nextAfter: accounts.length > ACCOUNTS_PAGE ? accounts[ACCOUNTS_PAGE - 1]!.id : null,
          notice: noticeOf(request.query, adminMessages[lang]),
        }),
      );
    },
  );

  area.post<{ Params: { id: string } }>(adminPaths.disable, async (request, reply) => {
    const { session, lang } = request.visit;
    const text = adminMessages[lang];
    const { id } = request.params;
    if (!/^\d{1,15}$/.test(id)) return sendErrorPage(reply, 404, text.notFound);
    if (Number(id) === session.accountId) return sendErrorPage(reply, 400, text.selfDisable);
    return disable(request, reply, Number(id));
  });

  /** Disables the account, revokes its credentials and ends its live streams at once. */
  async function disable(request: FastifyRequest, reply: FastifyReply, id: number) {
    const disabled = await disableAccount(ctx.db, id);
    const { lang } = request.visit;
    if (!disabled) return sendErrorPage(reply, 404, adminMessages[lang].notFound);
    await announceRevoked(ctx.bus, disabled.revokedDigests);
    streams.close((c) => c.accountId === id);
    return sendRedirect(reply, `${authOrigin(ctx, request)}${adminPaths.accounts}?disabled=1`);
  }
}

/** What the accounts page says after a post redirected to it. */
function noticeOf(query: { disabled?: unknown; limit?: unknown }, text: AdminText): string | undefined {
  if (query.disabled === '1') return text.disabledNotice;
  return query.limit === '1' ? text.limitNotice : undefined;
}
