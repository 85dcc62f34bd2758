-- Names linked without learned evidence (src/matching/names.ts; README, Matching).
-- A name's words: vendor_norm / product_norm cut at their separators ("palo_alto_networks" → palo, alto, networks).
-- The matcher links an item's vendor to a row's when all its words are among the row's ("apache" in
-- "Apache Software Foundation"). (Qualified: PostgreSQL 17+ builds an index with search_path = pg_catalog.)
CREATE FUNCTION vigie_name_words(name text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_remove(regexp_split_to_array(coalesce(name, ''), '[[:space:]_.,-]+'), '')
$$;--> statement-breakpoint
-- A CNA's display name of a product without its vendor's leading words, folded (names.ts productCore):
-- ("apache_software_foundation", "apache_airflow") → "airflow"; ("fortinet", "forticlientems") → "forticlientems".
-- One expression (inlined where the index is kept), one regular expression of the vendor's words
-- with their metacharacters escaped: a walk over the words (unnest, window) cost 156 µs a row on a loaded
-- PGlite, this 38 µs (PostgreSQL: 12 µs, 3.3 s to index the corpus's 277k CNA/ADP/KEV rows).
CREATE FUNCTION vigie_product_core(vendor text, product text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT nullif(regexp_replace(CASE WHEN btrim(coalesce(vendor, ''), ' _.,-') = '' THEN product
      ELSE regexp_replace(product, '^[[:space:]_.,-]*(?:(?:'
        || regexp_replace(regexp_replace(btrim(vendor, ' _.,-'), '([^[:alnum:][:space:]_.,-])', '\\\1', 'g'), '[[:space:]_.,-]+', '|', 'g')
        || ')(?:[[:space:]_.,-]+|$))+', '') END,
    '[[:space:]_.,-]+', '', 'g'), '')
$$;--> statement-breakpoint
-- A new product item → the display names of CNAs, ADPs and KEV that fold to its product (NVD names are CPE names).
CREATE INDEX "cve_affected_product_core_idx" ON "cve_affected" USING btree (vigie_product_core("vendor_norm", "product_norm")) WHERE "cve_affected"."origin" in ('cna', 'adp', 'kev');--> statement-breakpoint
-- A changed CVE's display names, folded → product and cpe items by their product folded.
CREATE INDEX "stack_items_product_key_idx" ON "stack_items" USING btree (vigie_vendor_key("match_product")) WHERE "stack_items"."item_type" in ('cpe', 'product');
