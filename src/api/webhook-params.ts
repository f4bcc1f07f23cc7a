import { Type } from 'typebox';
import type { AppContext } from '../context.ts';
import { HttpError } from '../http/errors.ts';
import { findSubscription, type Subscription } from '../webhooks/subscriptions.ts';

/** The path of a route about one webhook: its id, as the client wrote it. */
export const idParams = { params: Type.Object({ id: Type.String() }) };

/** A webhook route's entry in the API reference (/openapi.json): what it does, and its scope. */
export const about = (summary: string, scope: 'webhook.list' | 'webhook.manage', more = '') => ({
  summary,
  description: `${more}${more ? ' ' : ''}Scope \`${scope}\`. docs/webhooks.md.`,
});

/** A row id written in a path (digits, no sign, no leading zero), or null. */
export const positiveInt = (raw: string): number | null => {
  if (!/^[1-9]\d{0,15}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
};

/** The account's subscription named by the path, or the 404 every other id gets. */
export async function ownSubscription(
  ctx: AppContext,
  accountId: number,
  raw: string,
): Promise<Subscription> {
  const id = positiveInt(raw);
  const found = id === null ? null : await findSubscription(ctx.db, accountId, id);
  if (!found) throw new HttpError('WEBHOOK_NOT_FOUND');
  return found;
}
