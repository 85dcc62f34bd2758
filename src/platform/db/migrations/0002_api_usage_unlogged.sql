-- The per-organization hourly call counter is written on every API request. UNLOGGED keeps those
-- writes out of the WAL (no fsync per request). Trade-off, accepted: after a PostgreSQL crash (not a
-- clean restart) the table is emptied, so the current hour's counts restart from zero.
ALTER TABLE "api_usage" SET UNLOGGED;
