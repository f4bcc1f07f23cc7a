-- An operator may set an account's connection limit (docs/operations.md "Connection limits"): when
-- set, it replaces the count the account's plans give (1 per contract, +2, +5); NULL = the plans'.
ALTER TABLE accounts ADD COLUMN connection_limit integer
  CHECK (connection_limit IS NULL OR connection_limit BETWEEN 0 AND 1000000);
