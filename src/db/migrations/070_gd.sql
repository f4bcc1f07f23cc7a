-- Projections behind the merged earthquake list and the past early-warning list (docs/gd.md). Both
-- are pure functions of the reports stored here: a report is keyed by the serial of the JSON
-- telegram it came from, so recording it twice changes nothing, and `namazu convert --rebuild`
-- truncates these tables and records the stored JSON telegrams again. Documents are kept as `json`
-- (not `jsonb`) so that their members come back in the order the conversion wrote them.

-- What the earthquake merge needs of each earthquake-information / earthquake-hypocenter-update
-- document (VXSE51, VXSE52, VXSE53, VXSE61, VXSE62); the documents themselves stay in `telegrams`.
CREATE TABLE gd_earthquake_reports (
  serial        bigint PRIMARY KEY,             -- serial of the JSON telegram
  telegram_id   text NOT NULL UNIQUE,
  event_id      text NOT NULL,
  type          text NOT NULL,                  -- JMA data type code (VXSE53)
  title         text NOT NULL,                  -- Head/Title (遠地地震に関する情報 makes an event distant)
  canceled      boolean NOT NULL,               -- infoType 取消
  report_time   timestamptz NOT NULL,           -- reportDateTime
  press_time    timestamptz NOT NULL,           -- pressDateTime
  serial_no     integer,                        -- Head/Serial
  target_time   text NOT NULL,                  -- targetDateTime as written (VXSE51 arrival time)
  earthquake    json,                           -- the document's Earthquake component
  max_int       text,                           -- body.intensity.maxInt
  max_lg_int    text,                           -- VXSE62 body.intensity.maxLgInt
  lg_category   text                            -- VXSE62 body.intensity.lgCategory
);
CREATE INDEX gd_earthquake_reports_event ON gd_earthquake_reports (event_id, serial);

-- One row per EventID, recomputed from all its reports at each record. `id` is the lowest report
-- serial (the telegram the event first appeared with); `updated_serial` the highest (what polling
-- compares). `listed` is false while nothing valid is left (every report withdrawn).
CREATE TABLE gd_earthquake_events (
  event_id        text PRIMARY KEY,
  id              bigint NOT NULL UNIQUE,
  updated_serial  bigint NOT NULL,
  listed          boolean NOT NULL,
  hypocenter_code text,
  max_int_rank    smallint,                     -- 1 … 9 for 1 … 7; null when no intensity
  arrival_date    date,                         -- Japan date of arrivalTime
  summary         json                          -- the event summary without `id`
);
CREATE INDEX gd_earthquake_events_listed_id ON gd_earthquake_events (id DESC) WHERE listed;
CREATE INDEX gd_earthquake_events_updated ON gd_earthquake_events (updated_serial);
CREATE INDEX gd_earthquake_events_date_id ON gd_earthquake_events (arrival_date, id DESC) WHERE listed;
CREATE INDEX gd_earthquake_events_hypocenter_id ON gd_earthquake_events (hypocenter_code, id DESC) WHERE listed;

-- Every eew-information report of VXSE43/44/45, as its early-warning record (without `id`).
CREATE TABLE gd_eew_reports (
  serial        bigint PRIMARY KEY,             -- serial of the JSON telegram = the record's `id`
  telegram_id   text NOT NULL UNIQUE,
  event_id      text NOT NULL,
  type          text NOT NULL,
  serial_no     integer NOT NULL,
  is_last_info  boolean NOT NULL,
  received_time timestamptz NOT NULL,
  record        json NOT NULL
);
CREATE INDEX gd_eew_reports_event ON gd_eew_reports (event_id, serial);

-- One row per early-warning event whose final report (or cancellation) is stored: that report.
CREATE TABLE gd_eew_events (
  event_id      text PRIMARY KEY,
  report_serial bigint NOT NULL UNIQUE,
  received_time timestamptz NOT NULL
);
CREATE INDEX gd_eew_events_received ON gd_eew_events (received_time, report_serial);
