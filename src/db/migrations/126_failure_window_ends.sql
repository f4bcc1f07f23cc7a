-- Limiters with windows of different lengths share failure_windows (the token endpoint's minute,
-- sign-up's hour): each row says when its own window ends, so that clearing the ended windows of
-- one limiter never clears another's running ones. The counters are transient (the table is
-- unlogged): existing ones are dropped rather than given an end.
DELETE FROM failure_windows;
ALTER TABLE failure_windows ADD COLUMN window_end timestamptz NOT NULL;
CREATE INDEX failure_windows_end ON failure_windows (window_end);
