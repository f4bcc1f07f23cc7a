-- Filters by place and strength (docs/realtime.md "Filters by place and strength"). Each telegram keeps
-- the facts the filters read (src/telegrams/facts.ts), extracted at ingest; telegrams stored before
-- have none. Ingest joins the facts of an event's earlier telegrams (same kind and EventID) to a new
-- one's: the partial index finds them.
ALTER TABLE telegrams ADD COLUMN facts jsonb;
CREATE INDEX telegrams_facts_event ON telegrams ((facts->>'event')) WHERE facts ? 'event';
-- A session's filters: area and prefecture codes (null = every place), lowest intensity (null = any).
ALTER TABLE socket_sessions ADD COLUMN areas text[];
ALTER TABLE socket_sessions ADD COLUMN min_intensity text;
