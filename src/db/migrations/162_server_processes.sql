-- Every serving process records that it is alive every second (docs/realtime.md "The connection
-- limit"), and each open session names the process holding its connection: the sessions of a process
-- that died stop counting against their account's connection limit seconds after its death, instead of
-- after the pong timeout.
CREATE TABLE server_processes (
  id text PRIMARY KEY,
  seen_at timestamptz NOT NULL
);
ALTER TABLE socket_sessions ADD COLUMN process_id text;
