-- Two more links derived from the names themselves (src/matching/names.ts; ADR 0035).
-- A CNA display name without its trailing edition words, folded as vigie_product_core folds it
-- (names.ts productBase): ("f5", "nginx_open_source") → "nginx"; ("atlassian", "bamboo_server") → "bamboo".
-- Null when no edition word trails. Probed from a changed CVE through stack_items_product_key_idx,
-- from a new item through the index below (CNA rows with edition words only).
CREATE FUNCTION vigie_product_base(vendor text, product text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN product ~* '[^[:space:]_.,-][[:space:]_.,-]+(open[[:space:]_.,-]+source([[:space:]_.,-]+edition)?|community([[:space:]_.,-]+edition)?|server)[[:space:]_.,-]*$'
    THEN public.vigie_product_core(vendor, regexp_replace(product,
      '[[:space:]_.,-]+(open[[:space:]_.,-]+source([[:space:]_.,-]+edition)?|community([[:space:]_.,-]+edition)?|server)[[:space:]_.,-]*$', '', 'i')) END
$$;--> statement-breakpoint
CREATE INDEX "cve_affected_product_base_idx" ON "cve_affected" USING btree (vigie_product_base("vendor_norm", "product_norm")) WHERE "cve_affected"."origin" = 'cna' and vigie_product_base("cve_affected"."vendor_norm", "cve_affected"."product_norm") is not null;--> statement-breakpoint
-- The folded names a display name has without 1, 2… of its first words (names.ts nameTails):
-- "vmware_vcenter_server" → {vcenterserver, server}. A CNA that writes vendor "n/a" and the display
-- name as product ("VMware vCenter Server") is found from a changed CVE through
-- stack_items_product_key_idx, the item's vendor words then checked to lead the name.
CREATE FUNCTION vigie_name_tails(name text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(array_to_string(w[i:], '') ORDER BY i), '{}')
  FROM (SELECT public.vigie_name_words(name) AS w) x CROSS JOIN generate_series(2, cardinality(x.w)) i
$$;
