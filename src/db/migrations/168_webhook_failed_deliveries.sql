-- A subscription's failed deliveries, found without reading its delivered ones: listed by state
-- (GET /v2/webhook/:id/deliveries?state=failed) and queued again together (POST
-- /v2/webhook/:id/recover, docs/webhooks.md "Recovering failed deliveries"). Partial: a row enters
-- it only when it fails, so queueing and recording successes write nothing more.
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (subscription_id, id) WHERE state = 'failed';
