-- Indexes for the periodic cleanup of expired DPoP proof ids and authorization codes.
CREATE INDEX dpop_proofs_expires ON dpop_proofs (expires_at);
CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at);
CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id);
