-- The credential a WebSocket session was started with (docs/realtime.md "Cut off"): its digest,
-- and the API key or OAuth authorization it belongs to, so that revoking the key or the
-- authorization, or disabling the account, closes the session's connection on every process.
ALTER TABLE socket_sessions ADD COLUMN credential_digest text;
ALTER TABLE socket_sessions ADD COLUMN api_key_id bigint;
ALTER TABLE socket_sessions ADD COLUMN grant_id bigint;
