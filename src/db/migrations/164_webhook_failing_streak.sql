-- When a subscription's last attempt failed: a failing streak goes on only while failures keep
-- coming (a failing delivery is retried at least hourly); one failure a week after the last starts a
-- new streak instead of disabling a subscription that received nothing to fail on meanwhile.
ALTER TABLE webhook_subscriptions ADD COLUMN last_failed_at timestamptz;
UPDATE webhook_subscriptions SET last_failed_at = now() WHERE failing_since IS NOT NULL;
