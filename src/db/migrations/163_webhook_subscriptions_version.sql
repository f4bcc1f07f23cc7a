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

-- A disabled account's deliveries still pending (retries, a backlog) fail at once rather than being
-- sent for the rest of their day, as a disabled subscription's do.
CREATE FUNCTION webhook_account_disabled() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE webhook_deliveries SET state = 'failed', last_error = 'account disabled', lease_until = NULL
  WHERE state = 'pending' AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE account_id = NEW.id);
  RETURN NULL;
END $$;

CREATE TRIGGER accounts_fail_webhook_deliveries AFTER UPDATE OF disabled_at ON accounts
  FOR EACH ROW WHEN (OLD.disabled_at IS NULL AND NEW.disabled_at IS NOT NULL)
  EXECUTE FUNCTION webhook_account_disabled();
