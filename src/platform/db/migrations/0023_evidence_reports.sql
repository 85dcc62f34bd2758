CREATE TABLE "report_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"report_id" uuid NOT NULL,
	"event" text NOT NULL,
	"version" integer,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"actor_label" text,
	"detail" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_settings" (
	"project_id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"report_type" text DEFAULT 'rapport_projet' NOT NULL,
	"language" text DEFAULT 'fr' NOT NULL,
	"day_of_month" integer DEFAULT 1 NOT NULL,
	"last_period_from" date,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "report_settings_day_valid" CHECK ("report_settings"."day_of_month" between 1 and 28)
);
--> statement-breakpoint
CREATE TABLE "report_versions" (
	"report_id" uuid NOT NULL,
	"version" integer NOT NULL,
	"empreinte" text NOT NULL,
	"genere_le" timestamp with time zone NOT NULL,
	"contenu" text NOT NULL,
	"pdf" "bytea" NOT NULL,
	"pdf_sha256" text NOT NULL,
	"csv" text,
	"csv_sha256" text,
	CONSTRAINT "report_versions_report_id_version_pk" PRIMARY KEY("report_id","version")
);
--> statement-breakpoint
CREATE TABLE "reports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid,
	"report_type" text NOT NULL,
	"titre" text NOT NULL,
	"language" text NOT NULL,
	"period_from" date,
	"period_to" date,
	"current_version" integer DEFAULT 0 NOT NULL,
	"synchro_figee" boolean DEFAULT false NOT NULL,
	"synchro_etat" text DEFAULT 'en_cours' NOT NULL,
	"synchro_erreur" text,
	"sources" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"genere_le" timestamp with time zone,
	"derniere_synchro_le" timestamp with time zone,
	"fige_le" timestamp with time zone,
	"delivery_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reports_type_valid" CHECK ("reports"."report_type" in ('rapport_projet', 'conformite_kev', 'exceptions', 'inventaire')),
	CONSTRAINT "reports_state_valid" CHECK ("reports"."synchro_etat" in ('a_jour', 'en_cours', 'erreur', 'figee')),
	CONSTRAINT "reports_language_valid" CHECK ("reports"."language" in ('fr', 'en'))
);
--> statement-breakpoint
ALTER TABLE "report_history" ADD CONSTRAINT "report_history_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_settings" ADD CONSTRAINT "report_settings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_settings" ADD CONSTRAINT "report_settings_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "report_versions" ADD CONSTRAINT "report_versions_report_id_reports_id_fk" FOREIGN KEY ("report_id") REFERENCES "public"."reports"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reports" ADD CONSTRAINT "reports_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "report_history_report_idx" ON "report_history" USING btree ("report_id","id");--> statement-breakpoint
CREATE INDEX "report_settings_enabled_idx" ON "report_settings" USING btree ("project_id") WHERE "report_settings"."enabled";--> statement-breakpoint
CREATE INDEX "report_versions_empreinte_idx" ON "report_versions" USING btree ("empreinte");--> statement-breakpoint
CREATE INDEX "report_versions_pdf_idx" ON "report_versions" USING btree ("pdf_sha256");--> statement-breakpoint
CREATE INDEX "report_versions_csv_idx" ON "report_versions" USING btree ("csv_sha256") WHERE "report_versions"."csv_sha256" is not null;--> statement-breakpoint
CREATE INDEX "reports_project_idx" ON "reports" USING btree ("project_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "reports_org_idx" ON "reports" USING btree ("org_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "reports"."project_id" is null;--> statement-breakpoint
CREATE INDEX "reports_unfrozen_idx" ON "reports" USING btree ("id") WHERE not "reports"."synchro_figee";--> statement-breakpoint
CREATE UNIQUE INDEX "reports_delivery_uq" ON "reports" USING btree ("delivery_id") WHERE "reports"."delivery_id" is not null;