-- Failed requests counted per key (HMAC digest of a client address, or of an address and a client
-- id) in fixed windows, shared by every server process so that two nodes enforce one limit
-- (docs/oauth.md "Rate limits (failure limits)"). Unlogged: a crash forgets the counters, which only resets them.
CREATE UNLOGGED TABLE failure_windows (
  key_digest    text PRIMARY KEY,
  window_start  timestamptz NOT NULL,
  failures      integer NOT NULL
);
CREATE INDEX failure_windows_start ON failure_windows (window_start);
