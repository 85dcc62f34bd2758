DROP INDEX "cves_vendor_idx";--> statement-breakpoint
DROP INDEX "cves_product_idx";--> statement-breakpoint
CREATE INDEX "cves_vendor_idx" ON "cves" USING btree ("vendor_norm","date_published" DESC NULLS LAST,"cve_id");--> statement-breakpoint
CREATE INDEX "cves_product_idx" ON "cves" USING btree ("product_norm","date_published" DESC NULLS LAST,"cve_id");