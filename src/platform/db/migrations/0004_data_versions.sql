CREATE TABLE "data_versions" (
	"name" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX "cves_kev_idx" ON "cves" USING btree ("date_published" DESC NULLS LAST,"cve_id") WHERE "cves"."is_kev";