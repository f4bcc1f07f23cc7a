-- DPoP proof ids live for about two minutes and only guard against replay within that window. An
-- unlogged table skips the write-ahead log, so recording a proof id costs no disk flush; after a
-- database crash the table is empty, which reopens replay only for proofs of the last minute.
ALTER TABLE dpop_proofs SET UNLOGGED;
