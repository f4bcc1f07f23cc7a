import type { FastifyReply } from 'fastify';
import { CapReached } from '../../accounts/caps.ts';
import {
  deleteClient,
  findClientOf,
  listClientsOf,
  rotateClientSecret,
  updateClient,
  type ManagedClient,
} from '../../issuer/client-management.ts';
import {
  checkRegistration,
  RegistrationError,
  type RegistrationInput,
} from '../../issuer/client-registration.ts';
import { clientMadeAfter, createClient, currentSecretMark } from '../../issuer/clients.ts';
import { announceRevoked } from '../../issuer/tokens.ts';
import type { AppContext } from '../../context.ts';
import { singleValue, type Params } from '../../http/form.ts';
import type { App } from '../../http/surface.ts';
import {
  clientsText,
  emptyClientForm,
  fieldLabel,
  formValuesOf,
  renderClientFormPage,
  renderClientPage,
  renderClientsPage,
  type ClientFormValues,
} from './pages.ts';
import type { SafeHtml } from '../html.ts';
import type { Messages } from '../i18n.ts';
import { pathOf, paths } from '../paths.ts';
import { offeredScopes } from '../scope-field.ts';
import { createOnce, newestId, sentAgainAlert } from '../sent-again.ts';
import { checkedForm, guardVisits, rowId, type QueryOf, type Visit } from '../visit.ts';
import { sendErrorPage, sendPage, sendRedirect } from '../web.ts';

/** The clients area: the account's OAuth clients (docs/console.md "Credentials"). */

const text: Messages<'noClient'> = {
  en: { noClient: 'No such OAuth client of your account.' },
  ja: { noClient: 'あなたのアカウントにそのようなOAuthクライアントはありません。' },
};

type ClientParams = { Params: { id: string } };
/** A form about one client: sign-in leads back to the list. */
const onClient = { config: { returnTo: paths.clients } };

interface ClientView {
  secret?: string;
  notice?: string;
  values?: ClientFormValues;
  error?: RegistrationError;
  alert?: string | SafeHtml;
}

/** The form's values as submitted (kept to show again beside the errors). */
function clientFormValues(form: Params): ClientFormValues {
  const one = (name: string) => singleValue(form, name) ?? '';
  return {
    name: one('name'),
    type: one('type'),
    redirectUris: one('redirectUris'),
    grants: [...(form.get('grant') ?? [])],
    scopes: [...(form.get('scope') ?? [])],
    // A form without the field (an older page) keeps the server's default; a repeated one is refused.
    refreshRotation: form.has('refreshRotation') ? one('refreshRotation') : 'default',
    contact: one('contact'),
    appUrl: one('appUrl'),
    termsUrl: one('termsUrl'),
    privacyUrl: one('privacyUrl'),
  };
}

/** The registration the form describes, for `checkRegistration` (blank optional fields are absent). */
function registrationInput(v: ClientFormValues): RegistrationInput {
  const optional = (value: string) => (value.trim() === '' ? undefined : value.trim());
  return {
    name: v.name,
    type: v.type,
    redirectUris: v.redirectUris
      .split(/\r?\n/)
      .map((u) => u.trim())
      .filter((u) => u.length > 0),
    grants: v.grants,
    scopes: v.scopes.join(' '),
    refreshRotation: v.refreshRotation,
    contact: optional(v.contact),
    appUrl: optional(v.appUrl),
    termsUrl: optional(v.termsUrl),
    privacyUrl: optional(v.privacyUrl),
  };
}

/** The checked registration, or the RegistrationError naming every field that breaks a rule. */
function check(visit: Visit, values: ClientFormValues, type?: string) {
  try {
    const input = registrationInput(values);
    const checked = checkRegistration(type ? { ...input, type } : input, (f) => fieldLabel(visit.lang, f));
    const offered = offeredScopes(visit.account.isAdmin);
    const refused = checked.scopes.filter((s) => !offered.includes(s));
    if (refused.length > 0)
      return new RegistrationError([
        { field: 'scopes', message: `scope(s) not available to this account: ${refused.join(', ')}` },
      ]);
    return checked;
  } catch (err) {
    if (err instanceof RegistrationError) return err;
    throw err;
  }
}

async function showNewClient(
  ctx: AppContext,
  reply: FastifyReply,
  status: number,
  visit: Visit,
  values: ClientFormValues,
  shown: { error?: RegistrationError; alert?: string | SafeHtml } = {},
) {
  return sendPage(
    reply,
    status,
    renderClientFormPage({
      lang: visit.lang,
      header: visit.header('clients', paths.clientNew),
      origin: visit.origin,
      csrf: visit.csrf,
      action: visit.origin + paths.clients,
      newest: await newestId(ctx.db, 'oauth_clients', visit.account.id),
      values,
      offered: offeredScopes(visit.account.isAdmin),
      operatorRotation: ctx.config.refreshRotation,
      problems: shown.error?.problems ?? [],
      alert: shown.alert,
    }),
  );
}

async function showClient(
  ctx: AppContext,
  reply: FastifyReply,
  status: number,
  visit: Visit,
  client: ManagedClient,
  extra: ClientView = {},
) {
  return sendPage(
    reply,
    status,
    renderClientPage({
      lang: visit.lang,
      header: visit.header('clients', pathOf(paths.client, client.id)),
      origin: visit.origin,
      csrf: visit.csrf,
      client,
      values: extra.values ?? formValuesOf(client),
      offered: offeredScopes(visit.account.isAdmin),
      operatorRotation: ctx.config.refreshRotation,
      secret: extra.secret,
      secretMark: await currentSecretMark(ctx.db, ctx.pepper, visit.account.id, client.id),
      notice: extra.notice,
      problems: extra.error?.problems ?? [],
      alert: extra.alert,
    }),
  );
}

/** The visit's own client named by the path, or null after answering 404. */
async function ownClient(ctx: AppContext, reply: FastifyReply, visit: Visit, param: string) {
  const id = rowId(param);
  const client = id === null ? null : await findClientOf(ctx.db, visit.account.id, id);
  if (!client) sendErrorPage(reply, 404, text[visit.lang].noClient);
  return client;
}

/**
 * Registers the client, unless this form registered one already (sent again: sent-again.ts); the
 * error to show when the account holds as many as it may.
 */
async function register(
  ctx: AppContext,
  visit: Visit,
  form: Params,
  checked: Exclude<ReturnType<typeof check>, RegistrationError>,
) {
  const accountId = visit.account.id;
  try {
    return await createOnce(ctx.db, accountId, form, {
      madeAfter: (q, newest) => clientMadeAfter(q, accountId, newest, checked),
      create: (q) => createClient(q, ctx.pepper, { accountId, ...checked }),
    });
  } catch (err) {
    if (!(err instanceof CapReached)) throw err;
    return new RegistrationError([{ field: 'name', message: clientsText[visit.lang].cap }]);
  }
}

/**
 * Issues a new secret, unless the form names one that is no longer the current one: a secret was
 * issued since its page was drawn (the button sent again), and it stays. Null without a secret.
 */
async function rotate(ctx: AppContext, accountId: number, id: number, form: Params) {
  const replaces = singleValue(form, 'replaces');
  return ctx.db.tx(async (q) => {
    const current = await currentSecretMark(q, ctx.pepper, accountId, id, true);
    if (current !== null && replaces !== null && replaces !== current) return 'sent again' as const;
    return rotateClientSecret(q, ctx.pepper, accountId, id);
  });
}

export async function clientsArea(area: App, { ctx }: { ctx: AppContext }): Promise<void> {
  guardVisits(area, ctx);
  listRoutes(area, ctx);
  clientRoutes(area, ctx);
}

/** The list, the registration form and the registration. */
function listRoutes(area: App, ctx: AppContext): void {
  area.get<{ Querystring: QueryOf<'deleted'> }>(paths.clients, async (request, reply) => {
    const { visit } = request;
    return sendPage(
      reply,
      200,
      renderClientsPage({
        lang: visit.lang,
        header: visit.header('clients', paths.clients),
        clients: await listClientsOf(ctx.db, visit.account.id),
        notice: request.query.deleted === '1' ? clientsText[visit.lang].deleted : undefined,
      }),
    );
  });

  area.get(paths.clientNew, async (request, reply) =>
    showNewClient(ctx, reply, 200, request.visit, emptyClientForm),
  );

  area.post(paths.clients, { config: { returnTo: paths.clientNew } }, async (request, reply) => {
    const { visit } = request;
    const t = clientsText[visit.lang];
    const form = checkedForm(request);
    const values = clientFormValues(form);
    const checked = check(visit, values);
    if (checked instanceof RegistrationError)
      return showNewClient(ctx, reply, 400, visit, values, { error: checked });
    const outcome = await register(ctx, visit, form, checked);
    if (outcome instanceof RegistrationError)
      return showNewClient(ctx, reply, 409, visit, values, { error: outcome });
    if ('made' in outcome) {
      const link = {
        href: pathOf(paths.client, outcome.made),
        label: `${t.sentAlreadyLink} #${outcome.made}`,
      };
      return showNewClient(ctx, reply, 409, visit, values, { alert: sentAgainAlert(t.sentAlready, link) });
    }
    const { created } = outcome;
    const managed = await findClientOf(ctx.db, visit.account.id, created.client.id);
    return showClient(ctx, reply, 201, visit, managed!, {
      secret: created.clientSecret ?? undefined,
      notice: t.registered,
    });
  });
}

/** One client: its page, the edit, a new secret, the deletion. */
function clientRoutes(area: App, ctx: AppContext): void {
  area.get<ClientParams & { Querystring: QueryOf<'saved'> }>(paths.client, async (request, reply) => {
    const { visit } = request;
    const client = await ownClient(ctx, reply, visit, request.params.id);
    if (!client) return reply;
    const notice = request.query.saved === '1' ? clientsText[visit.lang].saved : undefined;
    return showClient(ctx, reply, 200, visit, client, { notice });
  });

  area.post<ClientParams>(paths.client, onClient, async (request, reply) => {
    const { visit } = request;
    const client = await ownClient(ctx, reply, visit, request.params.id);
    if (!client) return reply;
    const values = { ...clientFormValues(checkedForm(request)), type: client.type };
    const checked = check(visit, values, client.type);
    if (checked instanceof RegistrationError)
      return showClient(ctx, reply, 400, visit, client, { values, error: checked });
    await updateClient(ctx.db, visit.account.id, client.id, checked);
    return sendRedirect(reply, `${visit.origin}${pathOf(paths.client, client.id)}?saved=1`);
  });

  area.post<ClientParams>(paths.clientSecret, onClient, async (request, reply) => {
    const { visit } = request;
    const client = await ownClient(ctx, reply, visit, request.params.id);
    if (!client) return reply;
    const rotated = await rotate(ctx, visit.account.id, client.id, checkedForm(request));
    if (rotated === null) return sendErrorPage(reply, 404, text[visit.lang].noClient);
    if (rotated === 'sent again')
      return showClient(ctx, reply, 409, visit, client, {
        alert: clientsText[visit.lang].rotatedAlready,
      });
    if (rotated.replacedDigest !== null) await announceRevoked(ctx.bus, [rotated.replacedDigest]);
    return showClient(ctx, reply, 200, visit, client, { secret: rotated.secret });
  });

  area.post<ClientParams>(paths.clientDelete, onClient, async (request, reply) => {
    const { visit } = request;
    const id = rowId(request.params.id);
    const digests = id === null ? null : await deleteClient(ctx.db, visit.account.id, id);
    if (digests === null) return sendErrorPage(reply, 404, text[visit.lang].noClient);
    await announceRevoked(ctx.bus, digests);
    return sendRedirect(reply, `${visit.origin}${paths.clients}?deleted=1`);
  });
}
