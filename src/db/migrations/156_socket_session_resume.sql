-- Where a resuming connection starts (docs/realtime.md "Resume"): the serial of the telegram named by
-- `after` (or `Last-Event-ID`), resolved when the session starts; null for a session that does not resume.
ALTER TABLE socket_sessions ADD COLUMN resume_after bigint;
