-- Rotation of refresh tokens (docs/oauth.md "Refresh token rotation"). Each client says whether its
-- refresh tokens rotate: `default` follows the operator's NAMAZU_REFRESH_ROTATION, `on` and `off`
-- decide for that client alone.
ALTER TABLE oauth_clients
  ADD COLUMN refresh_rotation text NOT NULL DEFAULT 'default'
  CHECK (refresh_rotation IN ('default', 'on', 'off'));

-- When the authorization's first refresh token was issued: a rotated token carries it on, so that
-- the absolute cap still counts from there (NULL: the token's own created_at, never rotated).
ALTER TABLE oauth_tokens ADD COLUMN family_issued_at timestamptz;

-- Refresh tokens ended by a rotation, kept (as digests) until the expiry they had, so that a later
-- use of one is recognised as a reuse and ends the whole authorization.
CREATE TABLE oauth_rotated_tokens (
  digest      text PRIMARY KEY,
  grant_id    bigint NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  client_id   text NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX oauth_rotated_tokens_grant ON oauth_rotated_tokens (grant_id);
CREATE INDEX oauth_rotated_tokens_expires ON oauth_rotated_tokens (expires_at);
