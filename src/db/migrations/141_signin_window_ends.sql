-- Sign-in attempts are counted by the same fixed-window code as failures (src/auth/fixed-windows.ts):
-- each row says when its window ends, as failure_windows rows do (126_failure_window_ends.sql).
-- Sign-in has one window length, 15 minutes (src/auth/signin-limits.ts), so running windows keep
-- their counts and get that end.
ALTER TABLE signin_attempts ADD COLUMN window_end timestamptz;
UPDATE signin_attempts SET window_end = window_start + interval '15 minutes';
ALTER TABLE signin_attempts ALTER COLUMN window_end SET NOT NULL;
CREATE INDEX signin_attempts_end ON signin_attempts (window_end);
