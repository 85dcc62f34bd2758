-- The CVE list's vendor filter compares vendors as matching does (src/feeds/names.ts vendorKey):
-- the CPE-style name without separators, so that "paloaltonetworks" and "palo_alto_networks" find
-- the same CVEs. Applied to vendor_norm, which is already lower case with spaces as "_".
CREATE FUNCTION vigie_vendor_key(name text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT regexp_replace(name, '[[:space:]_.,-]+', '', 'g')
$$;--> statement-breakpoint
-- GET /cves?vendor=…: in the default order, a page is read off this index (it replaces the index on
-- vendor_norm, which only that filter used).
DROP INDEX "cves_vendor_idx";--> statement-breakpoint
CREATE INDEX "cves_vendor_key_idx" ON "cves" USING btree (vigie_vendor_key("vendor_norm"),"date_published" DESC NULLS LAST,"cve_id");
