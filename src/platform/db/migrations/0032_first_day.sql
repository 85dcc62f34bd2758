-- Issue 34 (a first day in the browser).
-- GET /api/v1/cves in its default order over the CVEs with a record of their own (RECORD_SOURCES in
-- src/feeds/merge.ts): the list leaves out, unless asked, the reference-only CVEs that only an advisory
-- cites, and on the bundled snapshot they are the newest 11,400 rows of cves_published_idx.
-- The inbox default order (sort=palier): tier, verified first, severity, newest, read off an index.
CREATE INDEX "cves_record_published_idx" ON "cves" USING btree ("date_published" DESC NULLS LAST,"cve_id") WHERE "cves"."sources" && '{cve5,nvd,kev,ghsa,go,pysec,rustsec,osv}'::text[];--> statement-breakpoint
CREATE INDEX "alerts_project_priority_idx" ON "alerts" USING btree ("project_id","palier",(("match" ->> 'rule') = 'unversioned'),(case "severity" when 'critical' then 0 when 'high' then 1 when 'medium' then 2 when 'low' then 3 when 'unknown' then 4 else 5 end),"triggered_at" DESC NULLS LAST,"id" DESC NULLS LAST);