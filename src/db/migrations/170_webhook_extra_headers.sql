-- A webhook's own request headers (docs/webhooks.md "Extra request headers"): the names and values
-- sealed as the signing secret is (null: none), and the names alone, shown to the owner.
ALTER TABLE webhook_subscriptions ADD COLUMN headers_sealed text;
ALTER TABLE webhook_subscriptions ADD COLUMN header_names text[] NOT NULL DEFAULT '{}';
