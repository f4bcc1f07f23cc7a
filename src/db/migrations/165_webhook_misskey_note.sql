-- How a `misskey` subscription's notes are posted (docs/webhooks.md "Formats"): their visibility
-- (NULL for the other formats) and whether they stay off federation. Subscriptions made before
-- posted public, federated notes, and go on doing so.
ALTER TABLE webhook_subscriptions
  ADD COLUMN visibility text CHECK (visibility IN ('public', 'home', 'followers')),
  ADD COLUMN local_only boolean NOT NULL DEFAULT false;
UPDATE webhook_subscriptions SET visibility = 'public' WHERE format = 'misskey';
ALTER TABLE webhook_subscriptions ADD CONSTRAINT webhook_subscriptions_misskey_note
  CHECK ((format = 'misskey') = (visibility IS NOT NULL) AND (format = 'misskey' OR NOT local_only));
