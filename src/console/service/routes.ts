import { addContract, connectionLimit, contractList, removeContract } from '../../accounts/contracts.ts';
import { planByClassification } from '../../accounts/plans.ts';
import { busCodecs } from '../../bus/codecs.ts';
import type { AppContext } from '../../context.ts';
import { singleValue } from '../../http/form.ts';
import type { App } from '../../http/surface.ts';
import { closeSessionOf, CLOSED_BY_ACCOUNT, listSessions } from '../../sessions/socket-sessions.ts';
import type { Messages } from '../i18n.ts';
import { paths } from '../paths.ts';
import { contractsText, renderContractsPage, renderSessionsPage, sessionsText } from './pages.ts';
import { checkedForm, guardVisits, rowId, type QueryOf } from '../visit.ts';
import { sendErrorPage, sendPage, sendRedirect } from '../web.ts';

/** The service area: contracts (apply, cancel) and WebSocket sessions (list, close) of the account. */

export const LISTED_SESSIONS = 50;

const text: Messages<'noSession' | 'badAction'> = {
  en: { noSession: 'No such WebSocket session of your account.', badAction: 'Choose apply or cancel.' },
  ja: {
    noSession: 'あなたのアカウントにそのようなWebSocketセッションはありません。',
    badAction: '申し込みか解約を選んでください。',
  },
};

export async function serviceArea(area: App, { ctx }: { ctx: AppContext }): Promise<void> {
  guardVisits(area, ctx);
  contractRoutes(area, ctx);
  sessionRoutes(area, ctx);
}

function contractRoutes(area: App, ctx: AppContext): void {
  area.get<{ Querystring: QueryOf<'done'> }>(paths.contracts, async (request, reply) => {
    const { visit } = request;
    const done = request.query.done;
    const t = contractsText[visit.lang];
    return sendPage(
      reply,
      200,
      renderContractsPage({
        lang: visit.lang,
        header: visit.header('contracts', paths.contracts),
        origin: visit.origin,
        csrf: visit.csrf,
        items: await contractList(ctx.db, visit.account.id),
        limit: await connectionLimit(ctx.db, visit.account.id),
        notice: done === 'apply' ? t.applied : done === 'cancel' ? t.cancelled : undefined,
      }),
    );
  });

  area.post(paths.contracts, async (request, reply) => {
    const { visit } = request;
    const form = checkedForm(request);
    const plan = planByClassification(singleValue(form, 'plan') ?? '');
    const action = singleValue(form, 'action');
    if (!plan) return sendErrorPage(reply, 400, contractsText[visit.lang].unknownPlan);
    if (action !== 'apply' && action !== 'cancel')
      return sendErrorPage(reply, 400, text[visit.lang].badAction);
    if (action === 'apply') await addContract(ctx.db, visit.account.id, plan.classification);
    else await removeContract(ctx.db, visit.account.id, plan.classification);
    // Every process applies the change to the account's live connections (as the CLI does).
    await busCodecs.contracts.publish(ctx.bus, { accountId: visit.account.id });
    return sendRedirect(reply, `${visit.origin}${paths.contracts}?done=${action}`);
  });
}

function sessionRoutes(area: App, ctx: AppContext): void {
  area.get<{ Querystring: QueryOf<'closed'> }>(paths.sessions, async (request, reply) => {
    const { visit } = request;
    const id = visit.account.id;
    const [{ items }, open, limit] = await Promise.all([
      listSessions(ctx.db, id, { limit: LISTED_SESSIONS }),
      listSessions(ctx.db, id, { status: 'open', limit: 1000 }),
      connectionLimit(ctx.db, id),
    ]);
    const closed = request.query.closed === '1';
    return sendPage(
      reply,
      200,
      renderSessionsPage({
        lang: visit.lang,
        header: visit.header('sessions', paths.sessions),
        origin: visit.origin,
        csrf: visit.csrf,
        sessions: items,
        open: open.items.length,
        limit,
        notice: closed ? sessionsText[visit.lang].closed : undefined,
      }),
    );
  });

  area.post<{ Params: { id: string } }>(
    paths.sessionClose,
    { config: { returnTo: paths.sessions } },
    async (request, reply) => {
      const { visit } = request;
      const id = rowId(request.params.id);
      // The same path as DELETE /v2/socket/:id: mark it closed, then whichever process holds it closes it.
      if (id === null || !(await closeSessionOf(ctx.db, visit.account.id, id, ctx.clock.now())))
        return sendErrorPage(reply, 404, text[visit.lang].noSession);
      await busCodecs.socketClose.publish(ctx.bus, { socketId: id, code: CLOSED_BY_ACCOUNT });
      return sendRedirect(reply, `${visit.origin}${paths.sessions}?closed=1`);
    },
  );
}
