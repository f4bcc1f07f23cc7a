-- Retention (docs/operations.md "Retention"): pruning walks each classification's telegrams oldest
-- first, and each projection's events by the time of their newest report.
CREATE INDEX telegrams_classification_received ON telegrams (classification, received_time, serial);
CREATE INDEX gd_earthquake_reports_press_time ON gd_earthquake_reports (press_time);
CREATE INDEX gd_eew_reports_received_time ON gd_eew_reports (received_time);
