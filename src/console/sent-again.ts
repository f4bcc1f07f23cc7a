import type { Db, Queryable } from '../db/types.ts';
import { singleValue, type Params } from '../http/form.ts';
import { markup, type SafeHtml } from './html.ts';

/**
 * A form whose answer shows a secret once, sent again (docs/console.md "Sent again"): a reload of
 * the answer or Back and resend posts the same form, and a double click or two tabs post it twice at
 * once. The form carries the id of the account's newest row of its kind when it was drawn
 * (`newest`); a row of the same request newer than that was made by this very form, which then makes
 * nothing and answers 409 naming it, its secret not shown again.
 */

const NEWEST = /^\d{1,15}$/;

/** The tables of rows a form makes once, each with the column of the account the rows belong to. */
const OWNER_COLUMNS = {
  api_keys: 'account_id',
  oauth_clients: 'account_id',
  webhook_subscriptions: 'account_id',
  invitations: 'created_by',
} as const;

type MadeOnceTable = keyof typeof OWNER_COLUMNS;

/** The id of the account's newest row of `table`, revoked, deleted or used or not (0: none). */
export async function newestId(q: Queryable, table: MadeOnceTable, accountId: number): Promise<number> {
  const [row] = await q.query<{ id: number }>(
    `SELECT coalesce(max(id), 0) AS id FROM ${table} WHERE ${OWNER_COLUMNS[table]} = $1`,
    [accountId],
  );
  return Number(row!.id);
}

/** The hidden field of a creation form: the account's newest row of the kind as drawn (0: none). */
export function newestField(newest: number): SafeHtml {
  return markup`<input type="hidden" name="newest" value="${String(newest)}">`;
}

/** The `newest` the form was drawn with; null for a form without it (an older page's: not checked). */
export function newestOf(form: Params): number | null {
  const newest = singleValue(form, 'newest');
  return newest !== null && NEWEST.test(newest) ? Number(newest) : null;
}

/**
 * Creates, in one transaction, unless `madeAfter` finds the row this form made already (newer than
 * its `newest`): both under the account row's lock, so forms sent at once are looked at one after
 * the other and the later one sees what the earlier made.
 */
export async function createOnce<Made, Created>(
  db: Db,
  accountId: number,
  form: Params,
  steps: {
    madeAfter: (q: Queryable, newest: number) => Promise<Made | null>;
    create: (q: Queryable) => Promise<Created>;
  },
): Promise<{ made: Made } | { created: Created }> {
  const newest = newestOf(form);
  return db.tx(async (q) => {
    await q.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
    const made = newest === null ? null : await steps.madeAfter(q, newest);
    return made === null ? { created: await steps.create(q) } : { made };
  });
}

/** The alert of a form sent again, with a link to what it made then. */
export function sentAgainAlert(text: string, link: { href: string; label: string }): SafeHtml {
  return markup`${text} <a href="${link.href}">${link.label}</a>`;
}

/** The alert above a form (`form-alert`): a problem of the whole form, as its being sent again. */
export function formAlert(alert: string | SafeHtml | undefined): SafeHtml | null {
  return alert ? markup`<p class="alert" role="alert" id="form-alert">${alert}</p>` : null;
}
