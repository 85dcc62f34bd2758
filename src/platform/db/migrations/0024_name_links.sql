-- Names linked without learned evidence (src/matching/names.ts; README, Matching).
-- A name's words: vendor_norm / product_norm cut at their separators ("palo_alto_networks" → palo, alto, networks).
-- The matcher links an item's vendor to a row's when all its words are among the row's ("apache" in
-- "Apache Software Foundation"). (Qualified: PostgreSQL 17+ builds an index with search_path = pg_catalog.)
CREATE FUNCTION vigie_name_words(name text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_remove(regexp_split_to_array(coalesce(name, ''), '[[:space:]_.,-]+'), '')
$$;--> statement-breakpoint
-- A CNA's display name of a product without its vendor's leading words, folded (names.ts productCore):
-- ("apache_software_foundation", "apache_airflow") → "airflow"; ("fortinet", "forticlientems") → "forticlientems".
CREATE FUNCTION vigie_product_core(vendor text, product text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT nullif(string_agg(w, '' ORDER BY n), '')
  FROM (SELECT t.w, t.n, bool_and(t.w = any(v.words)) OVER (ORDER BY t.n) AS lead
        FROM (SELECT public.vigie_name_words(vendor) AS words) v,
             unnest(public.vigie_name_words(product)) WITH ORDINALITY AS t(w, n)) s
  WHERE NOT lead
$$;--> statement-breakpoint
-- A new product item → the display names of CNAs, ADPs and KEV that fold to its product (NVD names are CPE names).
CREATE INDEX "cve_affected_product_core_idx" ON "cve_affected" USING btree (vigie_product_core("vendor_norm", "product_norm")) WHERE "cve_affected"."origin" in ('cna', 'adp', 'kev');--> statement-breakpoint
-- A changed CVE's display names, folded → product and cpe items by their product folded.
CREATE INDEX "stack_items_product_key_idx" ON "stack_items" USING btree (vigie_vendor_key("match_product")) WHERE "stack_items"."item_type" in ('cpe', 'product');
