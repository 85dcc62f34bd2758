-- cve.updated: whether the project's items still match an alert's CVE after an upstream change
-- (false: its affected ranges exclude them now; the alert is kept).
ALTER TABLE "alerts" ADD COLUMN "matching" boolean DEFAULT true NOT NULL;
--> statement-breakpoint
-- Dispatch woken at commit (ADR 0016): every statement that writes outbox events — whoever runs it,
-- a server, the CLI in another process, psql — makes PostgreSQL send NOTIFY vigie_cache 'outbox'
-- when its transaction commits (identical notifications of one transaction are sent once; a
-- rolled-back transaction sends none). Each server listens on its cache connection and dispatches.
-- A statement that inserts no row (an insert … select that found nothing) sends nothing.
CREATE FUNCTION "vigie_notify_outbox"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM new_events) THEN
    PERFORM pg_notify('vigie_cache', 'outbox');
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "outbox_events_notify" AFTER INSERT ON "outbox_events" REFERENCING NEW TABLE AS "new_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "vigie_notify_outbox"();
