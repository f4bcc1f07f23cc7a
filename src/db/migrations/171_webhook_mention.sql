-- A Discord or Slack webhook's mention (docs/webhooks.md "Mentions"): written before its posts of
-- the telegrams whose severity reaches `mention_on` (`urgent`, or `high` and `urgent`); null: none.
ALTER TABLE webhook_subscriptions ADD COLUMN mention text;
ALTER TABLE webhook_subscriptions ADD COLUMN mention_on text NOT NULL DEFAULT 'urgent';
