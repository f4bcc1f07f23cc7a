-- Telegram bodies are gzip streams already (or small A/N text): PostgreSQL's own compression of
-- large values only spends time finding that out at every insert. EXTERNAL keeps a large body out
-- of line without trying to compress it (docs/architecture.md, "Database").
ALTER TABLE telegrams ALTER COLUMN body SET STORAGE EXTERNAL;
