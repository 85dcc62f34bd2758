-- CSAF providers an organization follows (issue 36): the provider as discovered (CSAF 2.0 §7), its
-- public OpenPGP keys, its sync state (checkpoint, lease, outcome); the advisories read from it
-- (one row per tracking id, the newest version kept, the older versions' summaries in `history`);
-- the documents refused, the latest reason per address.
CREATE TABLE "csaf_providers" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"requested" text NOT NULL,
	"metadata_url" text,
	"discovered_via" text,
	"publisher_name" text,
	"publisher_namespace" text,
	"role" text,
	"keys" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"checkpoint" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" text DEFAULT 'nouveau' NOT NULL,
	"last_attempt_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_error" text,
	"last_document_at" timestamp with time zone,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "csaf_providers_org_requested_uq" UNIQUE("org_id","requested")
);
--> statement-breakpoint
ALTER TABLE "csaf_providers" ADD CONSTRAINT "csaf_providers_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "csaf_advisories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"provider_id" uuid NOT NULL,
	"tracking_id" text NOT NULL,
	"version" text NOT NULL,
	"tracking_status" text NOT NULL,
	"category" text NOT NULL,
	"title" text NOT NULL,
	"publisher" text NOT NULL,
	"tlp" text,
	"lang" text,
	"initial_release_date" timestamp with time zone,
	"current_release_date" timestamp with time zone NOT NULL,
	"url" text NOT NULL,
	"sha256" text NOT NULL,
	"cves" text[] DEFAULT '{}'::text[] NOT NULL,
	"revision_history" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"products" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"vulnerabilities" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"history" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "csaf_advisories_provider_tracking_uq" UNIQUE("provider_id","tracking_id")
);
--> statement-breakpoint
ALTER TABLE "csaf_advisories" ADD CONSTRAINT "csaf_advisories_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "csaf_advisories" ADD CONSTRAINT "csaf_advisories_provider_id_csaf_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."csaf_providers"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "csaf_advisories_org_release_idx" ON "csaf_advisories" USING btree ("org_id","current_release_date" DESC,"id");
--> statement-breakpoint
CREATE INDEX "csaf_advisories_cves_idx" ON "csaf_advisories" USING gin ("cves");
--> statement-breakpoint
CREATE TABLE "csaf_refusals" (
	"provider_id" uuid NOT NULL,
	"url" text NOT NULL,
	"raison" text NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "csaf_refusals_pk" PRIMARY KEY("provider_id","url")
);
--> statement-breakpoint
ALTER TABLE "csaf_refusals" ADD CONSTRAINT "csaf_refusals_provider_id_csaf_providers_id_fk" FOREIGN KEY ("provider_id") REFERENCES "public"."csaf_providers"("id") ON DELETE cascade ON UPDATE no action;
