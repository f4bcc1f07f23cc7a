/**
 * The start of a socket session, shared by `POST /v2/socket` and `GET /v2/stream`: the scopes its
 * classifications need, and the session's row under the account's connection limit, refused with
 * the data API's errors.
 */
import { requireScope } from '../access/authenticate.ts';
import type { Principal } from '../access/principal.ts';
import { planByClassification } from '../accounts/plans.ts';
import type { AppContext } from '../context.ts';
import { classScope } from '../scopes.ts';
import { startSession, type SessionSpec, type SessionStore } from '../sessions/socket-sessions.ts';
import { HttpError } from './errors.ts';

/** Each delivered classification asks for its own scope (403 naming it). */
export function requireClassificationScopes(principal: Principal, classifications: readonly string[]): void {
  for (const c of classifications) {
    if (planByClassification(c)?.delivers) requireScope(principal, classScope(c));
  }
}

/** Starts the session; SOCKETS_FULL (409) at the connection limit, NO_CONTRACT without a contract. */
export async function startSessionFor(
  ctx: Pick<AppContext, 'clock'>,
  store: SessionStore,
  principal: Principal,
  spec: SessionSpec,
) {
  const started = await startSession(
    store,
    principal.accountId,
    spec,
    ctx.clock.now(),
    principal.credentialDigest,
  );
  if (!started.ok)
    throw started.reason === 'full' ? new HttpError('SOCKETS_FULL') : new HttpError('NO_CONTRACT');
  return started;
}
