-- Every ping tick rewrites `ping_at` of each open session (src/realtime/upkeep.ts, docs/operations.md
-- "Sizing"). No index reads `ping_at`, so PostgreSQL updates the row in place (a HOT update: no new
-- index entries, a fifth of the WAL) when its page has room for the new version. At the default
-- fillfactor (100) pages are full, and each tick moved most rows to other pages, indexes and all.
-- bench/upkeep-tick.ts, 10,000 pongs of one of 10 processes holding 100,000 sessions: 81–92 → 28 ms
-- and 4.6–5.4 → 1.1 MB of WAL a tick on PostgreSQL, 126–133 → 34 ms on the embedded engine.
-- Rows on pages already full move once, to a page with the room (the fillfactor applies to every page
-- a new row version is put on), and are updated in place from then on.
ALTER TABLE socket_sessions SET (fillfactor = 70);
