import { parseConnectionLimit, setConnectionLimit } from '../../accounts/connection-limit.ts';
import { busCodecs } from '../../bus/codecs.ts';
import type { AppContext } from '../../context.ts';
import { formOf, singleValue } from '../../http/form.ts';
import type { App } from '../../http/surface.ts';
import { adminPaths } from '../paths.ts';
import { authOrigin, sendErrorPage, sendRedirect } from '../web.ts';
import { adminMessages } from './messages.ts';

/**
 * Sets or clears an account's connection limit from the accounts page (docs/operations.md
 * "Connection limits"), as `namazu account limit` does: a whole number, or an empty field for the
 * plans' count. A bad value is a 400 page and changes nothing.
 */
export function registerConnectionLimit(area: App, ctx: AppContext): void {
  area.post<{ Params: { id: string } }>(adminPaths.limit, async (request, reply) => {
    const text = adminMessages[request.visit.lang];
    const { id } = request.params;
    if (!/^\d{1,15}$/.test(id)) return sendErrorPage(reply, 404, text.notFound);
    const raw = singleValue(formOf(request) ?? new Map<string, string[]>(), 'connections') ?? '';
    const limit = raw.trim() === '' ? ({ ok: true, limit: null } as const) : parseConnectionLimit(raw);
    if (!limit.ok) return sendErrorPage(reply, 400, text.badLimit);
    if (!(await setConnectionLimit(ctx.db, Number(id), limit.limit)))
      return sendErrorPage(reply, 404, text.notFound);
    // Every process closes the connections beyond a lowered limit when told (else at its next ping).
    await busCodecs.contracts.publish(ctx.bus, { accountId: Number(id) });
    return sendRedirect(reply, `${authOrigin(ctx, request)}${adminPaths.accounts}?limit=1`);
  });
}
