import type { FastifyReply } from 'fastify';
import { apiKeyMadeAfter, createApiKey, listApiKeys, revokeApiKeyById } from '../../accounts/api-keys.ts';
import { CapReached } from '../../accounts/caps.ts';
import { isKnownScope } from '../../scopes.ts';
import { announceRevoked } from '../../issuer/tokens.ts';
import type { AppContext } from '../../context.ts';
import type { App } from '../../http/surface.ts';
import type { Messages } from '../i18n.ts';
import { keysText, renderKeysPage } from './keys-page.ts';
import { paths } from '../paths.ts';
import { offeredScopes } from '../scope-field.ts';
import { isScopePreset, presetScopes } from '../scope-text.ts';
import { createOnce, newestId } from '../sent-again.ts';
import { checkedForm, guardVisits, rowId, type QueryOf, type Visit } from '../visit.ts';
import { sendErrorPage, sendPage, sendRedirect } from '../web.ts';

/** The credentials area: the account's API keys (docs/console.md "Credentials"). */

const text: Messages<'noScope' | 'unknownScope' | 'unknownPreset' | 'noKey'> = {
  en: {
    noScope: 'Choose at least one scope.',
    unknownScope: 'Choose only scopes from the list.',
    unknownPreset: 'Choose one of the presets offered.',
    noKey: 'No such API key of your account.',
  },
  ja: {
    noScope: 'スコープを1つ以上選んでください。',
    unknownScope: '一覧にあるスコープだけを選んでください。',
    unknownPreset: '表示されている選び方から1つを選んでください。',
    noKey: 'あなたのアカウントにそのようなAPIキーはありません。',
  },
};

interface KeysView {
  created?: string;
  scopeError?: string;
  selected?: string[];
  notice?: string;
  alert?: string;
  beforeId?: number | null;
}

export async function credentialsArea(area: App, { ctx }: { ctx: AppContext }): Promise<void> {
  guardVisits(area, ctx);

  async function showKeys(reply: FastifyReply, status: number, visit: Visit, extra: KeysView = {}) {
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
        newest: await newestId(ctx.db, 'api_keys', visit.account.id),
        alert: extra.alert,
      }),
    );
  }

  area.get<{ Querystring: QueryOf<'revoked' | 'before'> }>(paths.keys, async (request, reply) => {
    const { visit, query } = request;
    return showKeys(reply, 200, visit, {
      notice: query.revoked === '1' ? keysText[visit.lang].revoked : undefined,
      beforeId: rowId(query.before),
    });
  });

  area.post(paths.keys, async (request, reply) => {
    const { visit } = request;
    const t = text[visit.lang];
    const form = checkedForm(request);
    const offered = offeredScopes(visit.account.isAdmin);
    const preset = form.get('preset');
    if (preset !== undefined) {
      // A preset button without the script: the form comes back with its scopes ticked, nothing made.
      const name = preset.length === 1 ? preset[0]! : '';
      if (!isScopePreset(name)) return showKeys(reply, 400, visit, { scopeError: t.unknownPreset });
      return showKeys(reply, 200, visit, { selected: presetScopes(name, offered) });
    }
    const chosen = [...new Set(form.get('scope') ?? [])];
    const selected = chosen.filter(isKnownScope);
    if (chosen.length === 0) return showKeys(reply, 400, visit, { scopeError: t.noScope });
    if (chosen.some((s) => !offered.includes(s)))
      return showKeys(reply, 400, visit, { scopeError: t.unknownScope, selected });
    let outcome;
    try {
      // Sent again (a reload of the answer, Back and resend, a double click): nothing made twice.
      outcome = await createOnce(ctx.db, visit.account.id, form, {
        madeAfter: (q, newest) => apiKeyMadeAfter(q, visit.account.id, newest, chosen),
        create: (q) => createApiKey(q, ctx.pepper, visit.account.id, chosen),
      });
    } catch (err) {
      if (!(err instanceof CapReached)) throw err;
      return showKeys(reply, 409, visit, { scopeError: keysText[visit.lang].cap, selected });
    }
    if ('made' in outcome) {
      const alert = keysText[visit.lang].sentAlready.replace('{id}', String(outcome.made));
      return showKeys(reply, 409, visit, { alert, selected });
    }
    // The value appears only in this answer (not cached, never in a URL).
    return showKeys(reply, 201, visit, { created: outcome.created.key });
  });

  area.post<{ Params: { id: string } }>(
    paths.keyRevoke,
    { config: { returnTo: paths.keys } },
    async (request, reply) => {
      const { visit } = request;
      const id = rowId(request.params.id);
      const digest = id === null ? null : await revokeApiKeyById(ctx.db, visit.account.id, id);
      if (digest === null) return sendErrorPage(reply, 404, text[visit.lang].noKey);
      await announceRevoked(ctx.bus, [digest]);
      return sendRedirect(reply, `${visit.origin}${paths.keys}?revoked=1`);
    },
  );
}
