CREATE TABLE "monitored_urls" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"url" text NOT NULL,
	"label" text,
	"is_enabled" boolean DEFAULT true NOT NULL,
	"scan_interval_hours" integer DEFAULT 24 NOT NULL,
	"down_after" integer,
	"cert_warning_days" integer,
	"last_status" text DEFAULT 'pending' NOT NULL,
	"last_http_status" integer,
	"last_error" text,
	"final_url" text,
	"last_duration_ms" integer,
	"cert_expires_at" timestamp with time zone,
	"cert_issuer" text,
	"cert_subject" text,
	"cert_valid" boolean,
	"cert_error" text,
	"technologies" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"last_scanned_at" timestamp with time zone,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"is_down" boolean DEFAULT false NOT NULL,
	"cert_warned_for" timestamp with time zone,
	"next_scan_at" timestamp with time zone DEFAULT now() NOT NULL,
	"scan_started_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "monitored_urls_interval" CHECK ("monitored_urls"."scan_interval_hours" between 1 and 720),
	CONSTRAINT "monitored_urls_down_after" CHECK ("monitored_urls"."down_after" is null or "monitored_urls"."down_after" between 1 and 100),
	CONSTRAINT "monitored_urls_cert_days" CHECK ("monitored_urls"."cert_warning_days" is null or "monitored_urls"."cert_warning_days" between 0 and 365)
);
--> statement-breakpoint
ALTER TABLE "monitored_urls" ADD CONSTRAINT "monitored_urls_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "monitored_urls" ADD CONSTRAINT "monitored_urls_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "monitored_urls_project_url_uq" ON "monitored_urls" USING btree ("project_id","url");--> statement-breakpoint
CREATE INDEX "monitored_urls_project_created_idx" ON "monitored_urls" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "monitored_urls_due_idx" ON "monitored_urls" USING btree ("next_scan_at") WHERE "monitored_urls"."is_enabled";