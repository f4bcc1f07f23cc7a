-- The webhook queuer matches telegrams against the active subscriptions it read at a version
-- (webhook_position.subscriptions_version, docs/webhooks.md "Durability"). Every change of what a
-- subscription receives moves that version through one function, which first takes the queuer's
-- advisory lock (the key of src/webhooks/queuer.ts, 'nzwh'): no slice of the queue is being
-- written while the subscriptions change, and every slice after sees the new version.
CREATE FUNCTION move_webhook_subscriptions_version() RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(1853519720);
  UPDATE webhook_position SET subscriptions_version = subscriptions_version + 1;
$$;

-- Besides a subscription's own row, what makes it active is its account not disabled and the
-- account's running contracts: those move the version too, in the changing transaction and
-- whichever path changes them (console, command line, a restore), so that no queuer goes on
-- delivering to a disabled account or misses a new contract's classifications, even on a node that
-- missed the bus's announcement.
CREATE FUNCTION webhook_subscriptions_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM move_webhook_subscriptions_version();
  RETURN NULL;
END $$;

CREATE TRIGGER contracts_move_webhook_version AFTER INSERT OR UPDATE OR DELETE ON contracts
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_changed();

CREATE TRIGGER accounts_move_webhook_version AFTER UPDATE OF disabled_at ON accounts
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_subscriptions_changed();

-- A disabled account's deliveries still pending (retries, a backlog) fail at once rather than being
-- sent for the rest of their day, as a disabled subscription's do. Under the queuer's lock: a slice
-- committed before is failed here, and one after matches without the account.
CREATE FUNCTION webhook_account_disabled() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM move_webhook_subscriptions_version();
  UPDATE webhook_deliveries SET state = 'failed', last_error = 'account disabled', lease_until = NULL
  WHERE state = 'pending' AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE account_id = NEW.id);
  RETURN NULL;
END $$;

CREATE TRIGGER accounts_fail_webhook_deliveries AFTER UPDATE OF disabled_at ON accounts
  FOR EACH ROW WHEN (OLD.disabled_at IS NULL AND NEW.disabled_at IS NOT NULL)
  EXECUTE FUNCTION webhook_account_disabled();
