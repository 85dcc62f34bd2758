CREATE TABLE "alert_tags" (
	"alert_id" uuid NOT NULL,
	"tag_id" uuid NOT NULL,
	CONSTRAINT "alert_tags_alert_id_tag_id_pk" PRIMARY KEY("alert_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"cve_id" text NOT NULL,
	"triggered_at" timestamp with time zone DEFAULT now() NOT NULL,
	"is_read" boolean DEFAULT false NOT NULL,
	"severity" text NOT NULL,
	"cvss_score" real,
	"is_kev" boolean DEFAULT false NOT NULL,
	"has_poc" boolean DEFAULT false NOT NULL,
	"epss" double precision,
	"palier" text NOT NULL,
	"vendor" text,
	"product" text,
	"source" text NOT NULL,
	"match" jsonb NOT NULL,
	"item_id" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "outbox_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"event" text NOT NULL,
	"cve_id" text,
	"alert_id" uuid,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"processed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "stack_item_tags" (
	"item_id" uuid NOT NULL,
	"tag_id" uuid NOT NULL,
	CONSTRAINT "stack_item_tags_item_id_tag_id_pk" PRIMARY KEY("item_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "stack_items" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"stack_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"item_type" text NOT NULL,
	"value" text NOT NULL,
	"min_severity" text,
	"match_vendor" text,
	"match_product" text,
	"match_version" text,
	"match_ecosystem" text,
	"match_cpe_product" text,
	"match_words" text[],
	"match_anchor" text,
	"match_cve" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stack_items_type_valid" CHECK ("stack_items"."item_type" in ('cpe', 'product', 'vendor', 'purl', 'keyword', 'cve'))
);
--> statement-breakpoint
CREATE TABLE "stacks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"name" text NOT NULL,
	"color" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "alert_backfill" text DEFAULT 'recent' NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "alert_backfill_days" integer DEFAULT 90 NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_tags" ADD CONSTRAINT "alert_tags_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_tags" ADD CONSTRAINT "alert_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_item_id_stack_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."stack_items"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stack_item_tags" ADD CONSTRAINT "stack_item_tags_item_id_stack_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."stack_items"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stack_item_tags" ADD CONSTRAINT "stack_item_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stack_items" ADD CONSTRAINT "stack_items_stack_id_stacks_id_fk" FOREIGN KEY ("stack_id") REFERENCES "public"."stacks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stack_items" ADD CONSTRAINT "stack_items_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stacks" ADD CONSTRAINT "stacks_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stacks" ADD CONSTRAINT "stacks_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tags" ADD CONSTRAINT "tags_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_tags_tag_idx" ON "alert_tags" USING btree ("tag_id");--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_project_cve_uq" ON "alerts" USING btree ("project_id","cve_id");--> statement-breakpoint
CREATE INDEX "alerts_project_triggered_idx" ON "alerts" USING btree ("project_id","triggered_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "alerts_project_unread_idx" ON "alerts" USING btree ("project_id") WHERE not "alerts"."is_read";--> statement-breakpoint
CREATE INDEX "alerts_project_cvss_idx" ON "alerts" USING btree ("project_id","cvss_score" DESC NULLS LAST,"triggered_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "alerts_project_kev_idx" ON "alerts" USING btree ("project_id","triggered_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "alerts"."is_kev";--> statement-breakpoint
CREATE INDEX "alerts_cve_idx" ON "alerts" USING btree ("cve_id");--> statement-breakpoint
CREATE INDEX "outbox_events_pending_idx" ON "outbox_events" USING btree ("id") WHERE "outbox_events"."processed_at" is null;--> statement-breakpoint
CREATE INDEX "stack_item_tags_tag_idx" ON "stack_item_tags" USING btree ("tag_id");--> statement-breakpoint
CREATE INDEX "stack_items_stack_idx" ON "stack_items" USING btree ("stack_id","created_at");--> statement-breakpoint
CREATE INDEX "stack_items_product_idx" ON "stack_items" USING btree ("match_product","match_vendor") WHERE "stack_items"."item_type" in ('cpe', 'product');--> statement-breakpoint
CREATE INDEX "stack_items_vendor_idx" ON "stack_items" USING btree ("match_vendor") WHERE "stack_items"."item_type" = 'vendor';--> statement-breakpoint
CREATE INDEX "stack_items_purl_idx" ON "stack_items" USING btree ("match_ecosystem","match_product") WHERE "stack_items"."item_type" = 'purl';--> statement-breakpoint
CREATE INDEX "stack_items_purl_cpe_idx" ON "stack_items" USING btree ("match_cpe_product") WHERE "stack_items"."item_type" = 'purl';--> statement-breakpoint
CREATE INDEX "stack_items_cve_idx" ON "stack_items" USING btree ("match_cve") WHERE "stack_items"."item_type" = 'cve';--> statement-breakpoint
CREATE INDEX "stack_items_anchor_idx" ON "stack_items" USING btree ("match_anchor") WHERE "stack_items"."item_type" = 'keyword';--> statement-breakpoint
CREATE UNIQUE INDEX "stacks_project_name_uq" ON "stacks" USING btree ("project_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_project_name_uq" ON "tags" USING btree ("project_id",lower("name"));--> statement-breakpoint
CREATE INDEX "cve_affected_product_only_idx" ON "cve_affected" USING btree ("product_norm");--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_alert_backfill_valid" CHECK ("projects"."alert_backfill" in ('recent', 'all'));--> statement-breakpoint
-- An OSV package name in its compared form: lower case; PyPI names as PEP 503 normalises them.
CREATE FUNCTION vigie_package_name(ecosystem text, name text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN lower(ecosystem) = 'pypi' THEN regexp_replace(lower(name), '[-_.]+', '-', 'g') ELSE lower(name) END
$$;--> statement-breakpoint
-- The packages an OSV advisory affects, as "ecosystem:name" keys: purl stack items find their
-- advisories through the index below. (Qualified: PostgreSQL 17+ builds an index with search_path = pg_catalog.)
CREATE FUNCTION vigie_package_keys(data jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT lower(p->>'ecosystem') || ':' || public.vigie_package_name(p->>'ecosystem', p->>'name')), '{}')
  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(data->'packages') = 'array' THEN data->'packages' ELSE '[]'::jsonb END) p
$$;--> statement-breakpoint
CREATE INDEX "public_vulns_packages_idx" ON "public_vulns" USING gin (vigie_package_keys("data"));
