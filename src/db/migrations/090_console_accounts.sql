-- The console's account features (docs/console.md): invitations to sign up, and when an API key was
-- last used.
CREATE TABLE invitations (
  id          bigserial PRIMARY KEY,
  digest      text NOT NULL UNIQUE,            -- HMAC-SHA-256 of the INv.… token
  email       text,                            -- when set, only this address may accept it
  created_by  bigint REFERENCES accounts(id) ON DELETE SET NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  account_id  bigint REFERENCES accounts(id) ON DELETE SET NULL
);

ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
