-- JSON conversions are telegrams of their own (docs/conversion.md): format 'json', the id of the XML
-- telegram they were converted from, and the schema they follow. One conversion per XML telegram:
-- its raw_digest is derived from the source's id, so ingesting the XML twice converts it once.
ALTER TABLE telegrams DROP CONSTRAINT telegrams_format_check;
ALTER TABLE telegrams ADD CONSTRAINT telegrams_format_check CHECK (format IN ('xml', 'a/n', 'binary', 'json'));
ALTER TABLE telegrams ADD COLUMN original_id text;
ALTER TABLE telegrams ADD COLUMN schema_type text;
ALTER TABLE telegrams ADD COLUMN schema_version text;
ALTER TABLE telegrams ADD CONSTRAINT telegrams_conversion_shape CHECK (
  (format = 'json') = (original_id IS NOT NULL AND schema_type IS NOT NULL AND schema_version IS NOT NULL)
);
CREATE UNIQUE INDEX telegrams_original_id ON telegrams (original_id) WHERE original_id IS NOT NULL;
