-- Each session start deletes its account's finished sessions beyond the newest thousand (the
-- list's history, src/sessions/socket-sessions.ts). Walked in this index, that look-up passes over
-- the finished and waiting sessions alone, from the index itself, not over every open session's row.
CREATE INDEX socket_sessions_finished ON socket_sessions (account_id, id DESC) INCLUDE (status, expires_at)
  WHERE status <> 'open';
