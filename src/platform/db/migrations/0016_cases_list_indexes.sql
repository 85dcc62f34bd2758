-- GET cases?severity=… (one value): the page read off the index, most recently changed first.
CREATE INDEX "cases_project_severity_idx" ON "cases" USING btree ("project_id","severity","updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
-- GET cases?sort=created_at|-created_at, and the export in that order (keyset on created_at, id).
CREATE INDEX "cases_project_created_idx" ON "cases" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
-- GET cases?sort=severity, and the export in that order: SEVERITY_RANK of cases.filters.ts, then the CVE id.
CREATE INDEX "cases_project_severity_rank_idx" ON "cases" USING btree ("project_id",(case "severity" when 'critical' then 0 when 'high' then 1 when 'medium' then 2 when 'low' then 3 when 'none' then 4 when 'unknown' then 5 else 6 end),"cve_id");
