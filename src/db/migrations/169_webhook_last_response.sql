-- The start of the last refusing response's body of a delivery (at most 1 KiB of text), shown to
-- the webhook's owner beside its status (docs/webhooks.md "Deliveries"); cleared once delivered.
ALTER TABLE webhook_deliveries ADD COLUMN last_response text;
