-- A webhook's signing secret rotated by its owner (docs/webhooks.md "Rotating the secret"): the
-- secret it replaced, still signing beside the new one until `previous_secret_until`, so that a
-- receiver moves to the new secret without refusing a delivery meanwhile. `secret_from` tells one
-- rotation from the next (the console's form carries it: a form sent again rotates nothing).
ALTER TABLE webhook_subscriptions
  ADD COLUMN previous_secret_sealed text,
  ADD COLUMN previous_secret_until timestamptz,
  ADD COLUMN secret_from timestamptz NOT NULL DEFAULT now();
UPDATE webhook_subscriptions SET secret_from = created_at;
ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_previous_secret
  CHECK ((previous_secret_sealed IS NULL) = (previous_secret_until IS NULL));
