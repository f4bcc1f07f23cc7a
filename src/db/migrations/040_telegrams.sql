-- Received telegrams (docs/api-contract.md "Telegram identity"). `serial` is assigned at reception
-- and never reused; ingest takes an advisory lock per transaction so serials become visible in
-- increasing order (polling with nextPooling then never skips a telegram committed late).
CREATE TABLE telegrams (
  serial         bigserial PRIMARY KEY,
  id             text NOT NULL UNIQUE,           -- SHA-384 hex of body (the bytes as delivered)
  raw_digest     text NOT NULL UNIQUE,           -- SHA-384 hex of the bytes as received (idempotency)
  classification text NOT NULL,
  type           text NOT NULL,
  author         text NOT NULL,
  target         text,
  head_time      timestamptz NOT NULL,
  designation    text,
  test           boolean NOT NULL,
  format         text NOT NULL CHECK (format IN ('xml', 'a/n', 'binary')),
  received_time  timestamptz NOT NULL,
  xml_report     jsonb,
  compression    text CHECK (compression IN ('gzip')),
  encoding       text NOT NULL CHECK (encoding IN ('base64', 'utf-8')),
  body           bytea NOT NULL
);
-- Type filters (exact codes and prefixes) walk newest first per type.
CREATE INDEX telegrams_type_serial ON telegrams (type text_pattern_ops, serial DESC);
CREATE INDEX telegrams_received_time ON telegrams (received_time);
-- test=only lists walk the few test telegrams only.
CREATE INDEX telegrams_test_serial ON telegrams (serial DESC) WHERE test;
