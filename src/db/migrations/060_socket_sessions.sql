-- WebSocket sessions (docs/realtime.md "Sessions and tickets"): created by POST /v2/socket with a
-- single-use ticket, opened by the WebSocket endpoint, closed when the connection ends.
CREATE TABLE socket_sessions (
  id              bigserial PRIMARY KEY,
  account_id      bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  ticket_digest   text NOT NULL UNIQUE,        -- HMAC-SHA-256 of the ticket; the ticket is never stored
  ticket_hint     text NOT NULL,               -- first characters of the ticket, shown by the list
  classifications text[] NOT NULL,
  types           text[],                      -- null = every type of the classifications
  test            text NOT NULL,               -- 'no' | 'including'
  format_mode     text NOT NULL,               -- 'raw' | 'json'
  app_name        text,
  status          text NOT NULL DEFAULT 'waiting', -- 'waiting' | 'open' | 'closed'
  start_at        timestamptz NOT NULL,        -- creation, then connection start
  expires_at      timestamptz NOT NULL,        -- ticket validity (creation + 300 s)
  end_at          timestamptz,
  ping_at         timestamptz,                 -- last valid pong
  ip_address      text,
  server          text,
  close_code      integer
);
-- The connection-limit check counts an account's open and unexpired waiting sessions.
CREATE INDEX socket_sessions_live ON socket_sessions (account_id) WHERE status <> 'closed';
CREATE INDEX socket_sessions_account ON socket_sessions (account_id, id DESC);
