import { contractedClassifications } from '../accounts/contracts.ts';
import { CredentialCache } from '../security/credential-cache.ts';
import { busCodecs } from '../bus/codecs.ts';
import type { AppContext } from '../context.ts';
import { onStop } from '../http/stop.ts';
import type { App } from '../http/surface.ts';

/** How long an account's contracted classifications are reused without asking the database. */
const CONTRACTS_TTL_MS = 10_000;

/**
 * Contracted classifications per account for the list endpoints, cached briefly and dropped at
 * once when the bus announces a contract change (until `app` closes).
 */
export async function contractedLookup(
  app: App,
  ctx: AppContext,
): Promise<(accountId: number) => Promise<Set<string>>> {
  const cache = new CredentialCache<Promise<Set<string>>>(CONTRACTS_TTL_MS, 100_000, () => ctx.clock.now());
  const unsubscribe = await busCodecs.contracts.subscribe(ctx.bus, ({ accountId }) =>
    cache.delete(String(accountId)),
  );
  onStop(app, 'onClose', unsubscribe);
  return (accountId) => {
    const key = String(accountId);
    let found = cache.get(key);
    if (!found) {
      // Concurrent requests share one read instead of all asking the database when an entry expires.
      found = contractedClassifications(ctx.db, accountId);
      cache.set(key, found);
      found.catch(() => cache.delete(key));
    }
    return found;
  };
}
