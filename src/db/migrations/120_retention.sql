-- Retention (docs/operations.md "Retention"): pruning walks each classification's telegrams oldest
-- first, and early warnings by the reception of their newest report.
CREATE INDEX telegrams_classification_received ON telegrams (classification, received_time, serial);
CREATE INDEX gd_eew_reports_received_time ON gd_eew_reports (received_time);
