-- Sign-in attempts counted per key (HMAC digest of the e-mail address or of the client IP) in fixed
-- windows. In the database so that every server process shares the same counters.
CREATE TABLE signin_attempts (
  key_digest    text PRIMARY KEY,
  window_start  timestamptz NOT NULL,
  attempts      integer NOT NULL
);
CREATE INDEX signin_attempts_window ON signin_attempts (window_start);
