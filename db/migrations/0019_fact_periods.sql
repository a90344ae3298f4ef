-- The period each stored fact was printed for (ingestion/statements.py reads it from the
-- column's header, or from the row's own words): its date, its length when it is shorter
-- than a year, and the column group it was printed under ("Consolidated", "Parent").
-- Facts of an older extractor version are re-read on the next ingest (domain/facts.py).
ALTER TABLE facts ADD COLUMN period_end date;
ALTER TABLE facts ADD COLUMN period_months integer;
ALTER TABLE facts ADD COLUMN column_group text NOT NULL DEFAULT '';
