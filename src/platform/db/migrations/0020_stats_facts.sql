CREATE TABLE "cve_facts" (
	"cve_id" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"day" date,
	"published" date,
	"updated" date,
	"reserved" date,
	"kev_added" date,
	"poc_first" date,
	"epss_first" date,
	"severity" text NOT NULL,
	"cvss" real,
	"epss" double precision,
	"is_kev" boolean NOT NULL,
	"has_poc" boolean NOT NULL,
	"maturite" text,
	"assigner" text,
	"vendor_key" text,
	"vendor" text,
	"product_key" text,
	"product" text,
	"cwe_ids" text[] DEFAULT '{}' NOT NULL,
	"sources" text[] DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "cves" ADD COLUMN "date_reserved" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "cves" ADD COLUMN "assigner" text;--> statement-breakpoint
ALTER TABLE "cve_facts" ADD CONSTRAINT "cve_facts_cve_id_cves_cve_id_fk" FOREIGN KEY ("cve_id") REFERENCES "public"."cves"("cve_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cve_facts_day_idx" ON "cve_facts" USING btree ("day","state");--> statement-breakpoint
CREATE INDEX "cve_facts_updated_idx" ON "cve_facts" USING btree ("updated");--> statement-breakpoint
CREATE INDEX "cve_facts_kev_added_idx" ON "cve_facts" USING btree ("kev_added");--> statement-breakpoint
CREATE INDEX "cve_facts_poc_first_idx" ON "cve_facts" USING btree ("poc_first");--> statement-breakpoint
CREATE INDEX "cve_facts_epss_first_idx" ON "cve_facts" USING btree ("epss_first");--> statement-breakpoint
-- The merged record's new columns, from the stored contributions (the CVE List's, else NVD's assigner).
UPDATE "cves" c SET
  "assigner" = coalesce(
    (SELECT s.data->>'assigner' FROM cve_sources s WHERE s.cve_id = c.cve_id AND s.source = 'cve5'),
    (SELECT s.data->>'assigner' FROM cve_sources s WHERE s.cve_id = c.cve_id AND s.source = 'nvd')),
  "date_reserved" = (SELECT (s.data->>'reserved')::timestamptz FROM cve_sources s WHERE s.cve_id = c.cve_id AND s.source = 'cve5')
WHERE EXISTS (SELECT 1 FROM cve_sources s WHERE s.cve_id = c.cve_id AND s.source IN ('cve5', 'nvd'));
--> statement-breakpoint
-- A KEV date as a day ('2024-05-01' or an ISO timestamp), null when it is not one.
CREATE FUNCTION vigie_iso_day(t text) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN t ~ '^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])' THEN left(t, 10)::date END
$$;
--> statement-breakpoint
-- What cve_facts holds of each CVE: one definition, for the triggers and the backfill below.
CREATE VIEW cve_facts_source AS
SELECT c.cve_id, c.state,
  CASE c.state
    WHEN 'PUBLISHED' THEN (c.date_published AT TIME ZONE 'Europe/Paris')::date
    WHEN 'REJECTED' THEN (coalesce(c.date_published, c.date_updated) AT TIME ZONE 'Europe/Paris')::date
    ELSE (c.date_reserved AT TIME ZONE 'Europe/Paris')::date
  END AS day,
  (c.date_published AT TIME ZONE 'Europe/Paris')::date AS published,
  (c.date_updated AT TIME ZONE 'Europe/Paris')::date AS updated,
  (c.date_reserved AT TIME ZONE 'Europe/Paris')::date AS reserved,
  vigie_iso_day(c.kev->>'date_added') AS kev_added,
  c.poc_first_date AS poc_first,
  (SELECT min(s.score_date) FROM epss_scores s WHERE s.cve_id = c.cve_id) AS epss_first,
  c.severity, c.cvss_score AS cvss, e.epss, c.is_kev, c.has_poc, c.maturite_exploit AS maturite, c.assigner,
  vigie_vendor_key(c.vendor_norm) AS vendor_key, c.vendor, c.product_norm AS product_key, c.product, c.cwe_ids, c.sources
FROM cves c LEFT JOIN epss_current e ON e.cve_id = c.cve_id;
--> statement-breakpoint
-- cve_facts follows cves: the rows an INSERT or UPDATE statement wrote (its transition table
-- `changed`), set-based, in the same transaction; unchanged facts are not rewritten.
CREATE FUNCTION vigie_cve_facts_from_cves() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO cve_facts AS f SELECT v.* FROM cve_facts_source v WHERE v.cve_id IN (SELECT cve_id FROM changed)
  ON CONFLICT (cve_id) DO UPDATE SET
    state = excluded.state, day = excluded.day, published = excluded.published, updated = excluded.updated,
    reserved = excluded.reserved, kev_added = excluded.kev_added, poc_first = excluded.poc_first,
    epss_first = excluded.epss_first, severity = excluded.severity, cvss = excluded.cvss, epss = excluded.epss,
    is_kev = excluded.is_kev, has_poc = excluded.has_poc, maturite = excluded.maturite, assigner = excluded.assigner,
    vendor_key = excluded.vendor_key, vendor = excluded.vendor, product_key = excluded.product_key,
    product = excluded.product, cwe_ids = excluded.cwe_ids, sources = excluded.sources
  WHERE (f.*) IS DISTINCT FROM (excluded.*);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cve_facts_insert AFTER INSERT ON cves REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION vigie_cve_facts_from_cves();
--> statement-breakpoint
CREATE TRIGGER cve_facts_update AFTER UPDATE ON cves REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION vigie_cve_facts_from_cves();
--> statement-breakpoint
-- The newest EPSS score (a daily file rescores every CVE: only changed scores are written).
CREATE FUNCTION vigie_cve_facts_epss() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE cve_facts f SET epss = n.epss FROM changed n WHERE f.cve_id = n.cve_id AND f.epss IS DISTINCT FROM n.epss;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cve_facts_epss_insert AFTER INSERT ON epss_current REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION vigie_cve_facts_epss();
--> statement-breakpoint
CREATE TRIGGER cve_facts_epss_update AFTER UPDATE ON epss_current REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION vigie_cve_facts_epss();
--> statement-breakpoint
-- The first score date: an older file imported later moves it back.
CREATE FUNCTION vigie_cve_facts_epss_first() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE cve_facts f SET epss_first = n.first
  FROM (SELECT cve_id, min(score_date) AS first FROM changed GROUP BY cve_id) n
  WHERE f.cve_id = n.cve_id AND (f.epss_first IS NULL OR n.first < f.epss_first);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER cve_facts_epss_first AFTER INSERT ON epss_scores REFERENCING NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION vigie_cve_facts_epss_first();
--> statement-breakpoint
-- The facts of the CVEs already held.
INSERT INTO cve_facts SELECT * FROM cve_facts_source;
