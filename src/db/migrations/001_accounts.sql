-- Accounts, API keys and contracts. Plans are configuration data (src/accounts/plans.ts); a
-- contract names its plan by id.
CREATE TABLE accounts (
  id            bigserial PRIMARY KEY,
  email         text NOT NULL UNIQUE,          -- stored lower-cased
  name          text,
  password_hash text NOT NULL,                 -- scrypt, see src/security/secrets.ts
  is_admin      boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id          bigserial PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  digest      text NOT NULL UNIQUE,            -- HMAC-SHA-256 of the AKe.… value
  scopes      text[] NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);

CREATE TABLE contracts (
  id          bigserial PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  plan_id     integer NOT NULL,
  start_at    timestamptz NOT NULL DEFAULT now(),
  end_at      timestamptz
);
-- At most one running contract per account and plan.
CREATE UNIQUE INDEX contracts_running ON contracts (account_id, plan_id) WHERE end_at IS NULL;
