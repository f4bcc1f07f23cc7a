import type { FastifyReply } from 'fastify';
import { createApiKey, listApiKeys, revokeApiKeyById } from '../accounts/api-keys.ts';
import { CapReached } from '../accounts/caps.ts';
import {
  deleteClient,
  findClientOf,
  listClientsOf,
  rotateClientSecret,
  updateClient,
  type ManagedClient,
} from '../auth/client-management.ts';
import { checkRegistration, RegistrationError, type RegistrationInput } from '../auth/client-registration.ts';
import { createClient } from '../auth/clients.ts';
import { isKnownScope } from '../auth/scopes.ts';
import { announceRevoked } from '../auth/tokens.ts';
import type { AppContext } from '../context.ts';
import { singleValue, type Params } from '../http/form.ts';
import type { App } from '../http/surface.ts';
import {
  clientsText,
  emptyClientForm,
  fieldLabel,
  formValuesOf,
  renderClientFormPage,
  renderClientPage,
  renderClientsPage,
  type ClientFormValues,
} from './clients-page.ts';
import type { Messages } from './i18n.ts';
import { keysText, renderKeysPage } from './keys-page.ts';
import { pathOf, paths } from './layout.ts';
import { offeredScopes } from './scope-field.ts';
import { postedForm, rowId, signedIn, type Visit } from './visit.ts';
import { sendErrorPage, sendPage, sendRedirect } from './web.ts';

/** The credentials area: API keys and OAuth clients (docs/console.md "Credentials"). */

const text: Messages<'noScope' | 'unknownScope' | 'noKey' | 'noClient'> = {
  en: {
    noScope: 'Choose at least one scope.',
    unknownScope: 'Choose only scopes from the list.',
    noKey: 'No such API key of your account.',
    noClient: 'No such OAuth client of your account.',
  },
  ja: {
    noScope: 'スコープを1つ以上選んでください。',
    unknownScope: '一覧にあるスコープだけを選んでください。',
    noKey: 'あなたのアカウントにそのようなAPIキーはありません。',
    noClient: 'あなたのアカウントにそのようなOAuthクライアントはありません。',
  },
};

/** The form's values as submitted (kept to show again beside the errors). */
function clientFormValues(form: Params): ClientFormValues {
  const one = (name: string) => singleValue(form, name) ?? '';
  return {
    name: one('name'),
    type: one('type'),
    redirectUris: one('redirectUris'),
    grants: [...(form.get('grant') ?? [])],
    scopes: [...(form.get('scope') ?? [])],
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
    contact: optional(v.contact),
    appUrl: optional(v.appUrl),
    termsUrl: optional(v.termsUrl),
    privacyUrl: optional(v.privacyUrl),
  };
}

export async function registerCredentialRoutes(scope: App, ctx: AppContext): Promise<void> {
  // API keys

  async function showKeys(
    reply: FastifyReply,
    status: number,
    visit: Visit,
    extra: {
      created?: string;
      scopeError?: string;
      selected?: string[];
      notice?: string;
      beforeId?: number | null;
    } = {},
  ) {
    const beforeId = extra.beforeId ?? null;
    const page = await listApiKeys(ctx.db, visit.account.id, beforeId);
    return sendPage(
      reply,
      status,
      renderKeysPage({
        lang: visit.lang,
        header: visit.header('keys', paths.keys),
        origin: visit.origin,
        csrf: visit.csrf,
        keys: page.items,
        olderThan: page.more ? page.items.at(-1)!.id : null,
        laterPage: beforeId !== null,
        offered: offeredScopes(visit.account.isAdmin),
        selected: new Set(extra.selected ?? []),
        scopeError: extra.scopeError,
        created: extra.created,
        notice: extra.notice,
      }),
    );
  }

  scope.get(paths.keys, async (request, reply) => {
    const visit = await signedIn(ctx, request, reply, paths.keys);
    if (!visit) return reply;
    const query = request.query as Record<string, unknown>;
    return showKeys(reply, 200, visit, {
      notice: query.revoked === '1' ? keysText[visit.lang].revoked : undefined,
      beforeId: rowId(query.before),
    });
  });

  scope.post(paths.keys, async (request, reply) => {
    const posted = await postedForm(ctx, request, reply, paths.keys);
    if (!posted) return reply;
    const { visit, form } = posted;
    const t = text[visit.lang];
    const chosen = [...new Set(form.get('scope') ?? [])];
    const offered = offeredScopes(visit.account.isAdmin);
    const selected = chosen.filter(isKnownScope);
    if (chosen.length === 0) return showKeys(reply, 400, visit, { scopeError: t.noScope });
    if (chosen.some((s) => !offered.includes(s)))
      return showKeys(reply, 400, visit, { scopeError: t.unknownScope, selected });
    let key: string;
    try {
      ({ key } = await ctx.db.tx((q) => createApiKey(q, ctx.pepper, visit.account.id, chosen)));
    } catch (err) {
      if (!(err instanceof CapReached)) throw err;
      return showKeys(reply, 409, visit, { scopeError: keysText[visit.lang].cap, selected });
    }
    // The value appears only in this answer (not cached, never in a URL).
    return showKeys(reply, 201, visit, { created: key });
  });

  scope.post(paths.keyRevoke, async (request, reply) => {
    const posted = await postedForm(ctx, request, reply, paths.keys);
    if (!posted) return reply;
    const { visit } = posted;
    const id = rowId((request.params as { id: string }).id);
    const digest = id === null ? null : await revokeApiKeyById(ctx.db, visit.account.id, id);
    if (digest === null) return sendErrorPage(reply, 404, text[visit.lang].noKey, undefined, visit.lang);
    await announceRevoked(ctx.bus, [digest]);
    return sendRedirect(reply, `${visit.origin}${paths.keys}?revoked=1`);
  });

  // OAuth clients

  scope.get(paths.clients, async (request, reply) => {
    const visit = await signedIn(ctx, request, reply, paths.clients);
    if (!visit) return reply;
    const deleted = (request.query as Record<string, unknown>).deleted === '1';
    return sendPage(
      reply,
      200,
      renderClientsPage({
        lang: visit.lang,
        header: visit.header('clients', paths.clients),
        clients: await listClientsOf(ctx.db, visit.account.id),
        notice: deleted ? clientsText[visit.lang].deleted : undefined,
      }),
    );
  });

  function showNewClient(
    reply: FastifyReply,
    status: number,
    visit: Visit,
    values: ClientFormValues,
    error?: RegistrationError,
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
        editing: false,
        values,
        offered: offeredScopes(visit.account.isAdmin),
        problems: error?.problems ?? [],
      }),
    );
  }

  scope.get(paths.clientNew, async (request, reply) => {
    const visit = await signedIn(ctx, request, reply, paths.clientNew);
    if (!visit) return reply;
    return showNewClient(reply, 200, visit, emptyClientForm);
  });

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

  scope.post(paths.clients, async (request, reply) => {
    const posted = await postedForm(ctx, request, reply, paths.clientNew);
    if (!posted) return reply;
    const { visit, form } = posted;
    const values = clientFormValues(form);
    const checked = check(visit, values);
    if (checked instanceof RegistrationError) return showNewClient(reply, 400, visit, values, checked);
    let created;
    try {
      created = await ctx.db.tx((q) =>
        createClient(q, ctx.pepper, { accountId: visit.account.id, ...checked }),
      );
    } catch (err) {
      if (!(err instanceof CapReached)) throw err;
      const cap = new RegistrationError([{ field: 'name', message: clientsText[visit.lang].cap }]);
      return showNewClient(reply, 409, visit, values, cap);
    }
    const { client, clientSecret } = created;
    const managed = await findClientOf(ctx.db, visit.account.id, client.id);
    return showClient(reply, 201, visit, managed!, {
      secret: clientSecret ?? undefined,
      notice: clientsText[visit.lang].registered,
    });
  });

  function showClient(
    reply: FastifyReply,
    status: number,
    visit: Visit,
    client: ManagedClient,
    extra: { secret?: string; notice?: string; values?: ClientFormValues; error?: RegistrationError } = {},
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
        secret: extra.secret,
        notice: extra.notice,
        problems: extra.error?.problems ?? [],
      }),
    );
  }

  /** The visit's own client named by the path, or null after answering 404. */
  async function ownClient(reply: FastifyReply, visit: Visit, param: string) {
    const id = rowId(param);
    const client = id === null ? null : await findClientOf(ctx.db, visit.account.id, id);
    if (!client) sendErrorPage(reply, 404, text[visit.lang].noClient, undefined, visit.lang);
    return client;
  }

  scope.get(paths.client, async (request, reply) => {
    const param = (request.params as { id: string }).id;
    const visit = await signedIn(ctx, request, reply, paths.client.replace(':id', encodeURIComponent(param)));
    if (!visit) return reply;
    const client = await ownClient(reply, visit, param);
    if (!client) return reply;
    const saved = (request.query as Record<string, unknown>).saved === '1';
    return showClient(reply, 200, visit, client, {
      notice: saved ? clientsText[visit.lang].saved : undefined,
    });
  });

  scope.post(paths.client, async (request, reply) => {
    const param = (request.params as { id: string }).id;
    const posted = await postedForm(ctx, request, reply, paths.clients);
    if (!posted) return reply;
    const { visit, form } = posted;
    const client = await ownClient(reply, visit, param);
    if (!client) return reply;
    const values = { ...clientFormValues(form), type: client.type };
    const checked = check(visit, values, client.type);
    if (checked instanceof RegistrationError)
      return showClient(reply, 400, visit, client, { values, error: checked });
    await updateClient(ctx.db, visit.account.id, client.id, checked);
    return sendRedirect(reply, `${visit.origin}${pathOf(paths.client, client.id)}?saved=1`);
  });

  scope.post(paths.clientSecret, async (request, reply) => {
    const param = (request.params as { id: string }).id;
    const posted = await postedForm(ctx, request, reply, paths.clients);
    if (!posted) return reply;
    const { visit } = posted;
    const client = await ownClient(reply, visit, param);
    if (!client) return reply;
    const secret = await rotateClientSecret(ctx.db, ctx.pepper, visit.account.id, client.id);
    if (secret === null) return sendErrorPage(reply, 404, text[visit.lang].noClient, undefined, visit.lang);
    return showClient(reply, 200, visit, client, { secret });
  });

  scope.post(paths.clientDelete, async (request, reply) => {
    const param = (request.params as { id: string }).id;
    const posted = await postedForm(ctx, request, reply, paths.clients);
    if (!posted) return reply;
    const { visit } = posted;
    const id = rowId(param);
    const digests = id === null ? null : await deleteClient(ctx.db, visit.account.id, id);
    if (digests === null) return sendErrorPage(reply, 404, text[visit.lang].noClient, undefined, visit.lang);
    await announceRevoked(ctx.bus, digests);
    return sendRedirect(reply, `${visit.origin}${paths.clients}?deleted=1`);
  });
}
