-- The webhook queuer matches telegrams against the active subscriptions it read at a version
-- (webhook_position.subscriptions_version, docs/webhooks.md "Durability"). What makes a subscription
-- active besides its own row, its account not disabled and the account's running contracts, moves
-- that version too, in the changing transaction and whichever path changes it (console, command
-- line, a restore): no queuer goes on delivering to a disabled account or misses a new contract's
-- classifications, even on a node that missed the bus's announcement.
CREATE FUNCTION webhook_subscriptions_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE webhook_position SET subscriptions_version = subscriptions_version + 1;
  RETURN NULL;
END $$;

CREATE TRIGGER contracts_move_webhook_version AFTER INSERT OR UPDATE OR DELETE ON contracts
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_changed();

CREATE TRIGGER accounts_move_webhook_version AFTER UPDATE OF disabled_at ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_changed();
