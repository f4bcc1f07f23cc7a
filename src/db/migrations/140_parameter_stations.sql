-- Station lists of the parameter API (docs/parameter.md) imported by `namazu stations import`,
-- replacing the lists shipped with the release. One row per kind (earthquake, tsunami); the items
-- are the API's item array as JSON text, served as they are.
CREATE TABLE parameter_station_lists (
  kind         text PRIMARY KEY CHECK (kind IN ('earthquake', 'tsunami')),
  change_time  timestamptz NOT NULL,
  version      text NOT NULL,
  items        text NOT NULL,
  imported_at  timestamptz NOT NULL DEFAULT now()
);
