-- EPSS leaves the wide cves rows: the daily file (360,000 scores) only writes the narrow epss tables.
-- cve_sources.data becomes json: stored and read back whole, never queried inside; half the cost of jsonb to write.
DROP INDEX "cves_epss_idx";--> statement-breakpoint
ALTER TABLE "cve_sources" ALTER COLUMN "data" SET DATA TYPE json USING "data"::json;--> statement-breakpoint
CREATE INDEX "epss_current_epss_idx" ON "epss_current" USING btree ("epss" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "cves" DROP COLUMN "epss_score";--> statement-breakpoint
ALTER TABLE "cves" DROP COLUMN "epss_percentile";--> statement-breakpoint
ALTER TABLE "cves" DROP COLUMN "epss_date";--> statement-breakpoint
ALTER TABLE "cves" DROP COLUMN "epss_publie";