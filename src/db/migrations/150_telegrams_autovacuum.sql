-- Retention deletes a few hours of telegrams at a time and leaves the space to PostgreSQL's
-- autovacuum (docs/operations.md "Retention", "Space"). Its default waits for a fifth of the table
-- to be dead rows; at 2 % it runs about weekly at JMA's volume, so the files grow by about a week
-- of telegrams before the freed space is reused. The embedded engine has no autovacuum: the
-- setting is kept there and does nothing.
ALTER TABLE telegrams SET (autovacuum_vacuum_scale_factor = 0.02);
