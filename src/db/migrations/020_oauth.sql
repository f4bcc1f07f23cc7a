-- OAuth clients, authorizations (token families), codes, tokens, DPoP proof ids, sign-in sessions.
-- Every secret is stored as an HMAC-SHA-256 digest (src/security/secrets.ts); client ids are public.
CREATE TABLE oauth_clients (
  id             bigserial PRIMARY KEY,
  client_id      text NOT NULL UNIQUE,         -- CId.…
  secret_digest  text,                         -- CSt.… digest; NULL for public clients
  account_id     bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name           text NOT NULL,
  type           text NOT NULL CHECK (type IN ('confidential', 'public')),
  redirect_uris  text[] NOT NULL DEFAULT '{}',
  grants         text[] NOT NULL,
  scopes         text[] NOT NULL,
  contact        text,
  app_url        text,
  terms_url      text,
  privacy_url    text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz
);

-- One row per authorization an account granted (or per client-credentials issuance): its family id
-- links the code and every token issued from it, so revoking deletes them all at once.
CREATE TABLE oauth_grants (
  id          bigserial PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  client_id   text NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
  scopes      text[] NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_codes (
  digest                 text PRIMARY KEY,
  grant_id               bigint NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  client_id              text NOT NULL,
  account_id             bigint NOT NULL,
  redirect_uri           text,                 -- as sent at authorization (NULL when omitted)
  scopes                 text[] NOT NULL,
  code_challenge         text,
  code_challenge_method  text,
  dpop_jkt               text,
  expires_at             timestamptz NOT NULL,
  used_at                timestamptz
);

CREATE TABLE oauth_tokens (
  digest      text PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('access', 'refresh')),
  grant_id    bigint REFERENCES oauth_grants(id) ON DELETE CASCADE,
  client_id   text NOT NULL,
  account_id  bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  scopes      text[] NOT NULL,
  jkt         text,                            -- DPoP key thumbprint the token is bound to
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);

-- DPoP proof ids seen within the acceptance window; the primary key makes replay detection atomic
-- across processes.
CREATE TABLE dpop_proofs (
  jti_digest  text PRIMARY KEY,
  expires_at  timestamptz NOT NULL
);

CREATE TABLE web_sessions (
  digest      text PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
