import { pruneCodes } from '../issuer/code-redemption.ts';
import { pruneProofJtis } from '../dpop/dpop-replay.ts';
import { pruneExpiredTokens } from '../issuer/tokens.ts';
import { pruneRotatedTokens } from '../issuer/refresh-rotation.ts';
import type { AppContext } from '../context.ts';

export const CLEANUP_INTERVAL_MS = 60_000;
/** Used codes are remembered a day past expiry, so a late replay still revokes the authorization. */
const CODE_KEEP_MS = 86_400_000;
const TOKEN_BATCH = 5000;

/**
 * One cleanup pass: expired tokens and refresh tokens ended by rotation (in batches), DPoP proof
 * ids, old codes and empty authorizations.
 */
export async function cleanUpTokens(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<void> {
  const now = ctx.clock.now();
  while ((await pruneExpiredTokens(ctx.db, now, TOKEN_BATCH)) === TOKEN_BATCH);
  while ((await pruneRotatedTokens(ctx.db, now, TOKEN_BATCH)) === TOKEN_BATCH);
  await pruneProofJtis(ctx.db, now);
  await pruneCodes(ctx.db, now, CODE_KEEP_MS);
}

/** Runs cleanUpTokens every minute in this process; returns what stops it. */
export function scheduleTokenCleanup(ctx: Pick<AppContext, 'db' | 'clock' | 'log'>): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    cleanUpTokens(ctx)
      .catch((err: unknown) => ctx.log.warn({ err }, 'token cleanup failed'))
      .finally(() => {
        running = false;
      });
  }, CLEANUP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
