-- Webhook subscriptions and their deliveries (docs/webhooks.md).

-- One account's registered receiver: where, what (the socket start's filters and those by place and
-- strength), how (format, language), and its secrets sealed with a key derived from the server
-- pepper (security/sealed.ts): the signing secret must be usable to sign, so it cannot be a digest.
CREATE TABLE webhook_subscriptions (
  id               bigserial PRIMARY KEY,
  account_id       bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  url              text NOT NULL,
  -- The URL's host, lower case: deliveries are bounded per destination host.
  host             text NOT NULL,
  classifications  text[] NOT NULL,
  types            text[],
  test             text NOT NULL DEFAULT 'no' CHECK (test IN ('no', 'including')),
  format_mode      text NOT NULL DEFAULT 'raw' CHECK (format_mode IN ('raw', 'json')),
  areas            text[],
  min_intensity    text,
  format           text NOT NULL DEFAULT 'namazu',
  lang             text NOT NULL DEFAULT 'ja' CHECK (lang IN ('ja', 'en')),
  secret_sealed    text NOT NULL,
  token_sealed     text,
  state            text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
  disabled_reason  text,
  -- Since when every attempt has failed (NULL: the last attempt succeeded, or none was made).
  failing_since    timestamptz,
  -- The newest telegram serial when it was created: it receives the telegrams after it.
  from_serial      bigint NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_subscriptions_account ON webhook_subscriptions (account_id, id);

-- One telegram (or test event) to one subscription: a queue row claimed by lease
-- (FOR UPDATE SKIP LOCKED), retried with backoff until delivered or failed.
CREATE TABLE webhook_deliveries (
  id                bigserial PRIMARY KEY,
  subscription_id   bigint NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  -- The telegram's serial; NULL for a test event.
  serial            bigint,
  -- The `webhook-id` header: the same on every attempt of this delivery.
  message_id        text NOT NULL,
  -- 0: early warnings (sent first), 1: everything else.
  priority          smallint NOT NULL,
  state             text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts          integer NOT NULL DEFAULT 0,
  next_at           timestamptz NOT NULL DEFAULT now(),
  lease_until       timestamptz,
  last_status       integer,
  last_error        text,
  last_duration_ms  integer,
  last_attempt_at   timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  -- Retries go on for a day from here: the queueing, or a redelivery by hand.
  retry_from        timestamptz NOT NULL DEFAULT now(),
  delivered_at      timestamptz,
  UNIQUE (subscription_id, serial)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (priority, next_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (subscription_id, id DESC);
CREATE INDEX webhook_deliveries_ended ON webhook_deliveries (created_at) WHERE state <> 'pending';

-- The last telegram serial queued for the subscriptions: the queuer reads the store after it.
-- `subscriptions_version` grows with every change of the subscriptions, so that a queuer holding
-- them in memory knows, under its lock, whether they are still the ones to match. Starts at the
-- newest telegram stored when the table is created (queued: what is committed from then on).
CREATE TABLE webhook_position (
  one     boolean PRIMARY KEY DEFAULT true CHECK (one),
  serial  bigint NOT NULL,
  subscriptions_version  bigint NOT NULL DEFAULT 0
);
INSERT INTO webhook_position (serial) SELECT coalesce(max(serial), 0) FROM telegrams;
