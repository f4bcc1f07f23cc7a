import type { Queryable } from '../db/types.ts';
import { mintToken, type NewToken } from './tokens.ts';

/** Issuances written in one statement at most (a statement's parameters stay small). */
const MAX_BATCH = 256;

interface Pending {
  token: NewToken;
  digest: string;
  createdAt: Date;
  done: (stored: boolean) => void;
  failed: (err: unknown) => void;
}

/**
 * Stores access tokens that act for an account alone (the client_credentials grant) by group
 * commit: one INSERT is in flight at a time, and the issuances that arrive meanwhile are written
 * together by the next one, so concurrent issuances share a round trip and a commit instead of
 * queueing for one each. Nothing waits for a batch to fill: an issuance with none in flight is
 * written at once. A token is committed before its issuance resolves.
 *
 * The statement stores a token only while its account is active (not disabled), so the check and
 * the write are one step; it share-locks the account until it commits, so a disabling that runs
 * meanwhile waits for it and then deletes the token (docs/oauth.md).
 */
export class AccountTokenWriter {
  private queue: Pending[] = [];
  private writing = false;

  constructor(
    private readonly db: Queryable,
    private readonly pepper: Buffer,
  ) {}

  /** Stores the token and returns its value; null when its account is disabled or gone. */
  issue(now: number, token: NewToken): Promise<string | null> {
    const { value, digest } = mintToken(this.pepper, token.kind);
    return new Promise<boolean>((done, failed) => {
      this.queue.push({ token, digest, createdAt: new Date(now), done, failed });
      if (!this.writing) void this.writeAll();
    }).then((stored) => (stored ? value : null));
  }

  private async writeAll(): Promise<void> {
    this.writing = true;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const stored = await this.write(batch);
        for (const p of batch) p.done(stored.has(p.digest));
      } catch (err) {
        for (const p of batch) p.failed(err);
      }
    }
    this.writing = false;
  }

  /** One INSERT for the batch; the digests stored (those whose account is active). */
  private async write(batch: readonly Pending[]): Promise<Set<string>> {
    // Arrays keep the statement's text the same for every batch size, so it is prepared once.
    const rows = await this.db.query<{ digest: string }>(
      `INSERT INTO oauth_tokens (digest, kind, grant_id, client_id, account_id, scopes, jkt, created_at, expires_at)
       SELECT v.digest, v.kind, v.grant_id, v.client_id, v.account_id, string_to_array(v.scopes, ' '), v.jkt,
              v.created_at, v.expires_at
       FROM unnest($1::text[], $2::text[], $3::int8[], $4::text[], $5::int8[], $6::text[], $7::text[],
                   $8::timestamptz[], $9::timestamptz[])
            AS v(digest, kind, grant_id, client_id, account_id, scopes, jkt, created_at, expires_at)
       WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = v.account_id AND a.disabled_at IS NULL FOR SHARE)
       RETURNING digest`,
      [
        batch.map((p) => p.digest),
        batch.map((p) => p.token.kind),
        batch.map((p) => p.token.grantId),
        batch.map((p) => p.token.clientId),
        batch.map((p) => p.token.accountId),
        batch.map((p) => p.token.scopes.join(' ')),
        batch.map((p) => p.token.jkt),
        batch.map((p) => p.createdAt),
        batch.map((p) => p.token.expiresAt),
      ],
    );
    return new Set(rows.map((r) => r.digest));
  }
}
