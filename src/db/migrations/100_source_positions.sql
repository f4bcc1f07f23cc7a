-- Where each network source stands (docs/sources.md), so that a restart neither misses nor
-- fetches again what it has: a JMA feed's validators and the entries it has handled, an upstream's
-- polling cursor. One row per source instance (e.g. `jma-feed https://…/eqvol.xml`).
CREATE TABLE source_positions (
  source      text PRIMARY KEY,
  position    jsonb NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now()
);
