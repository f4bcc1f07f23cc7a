-- An administrator can disable an account (docs/console-live.md "Administration"): it can no
-- longer sign in, and its sessions, tokens and API keys were ended when it was disabled.
ALTER TABLE accounts ADD COLUMN disabled_at timestamptz;
