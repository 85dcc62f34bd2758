CREATE TABLE "case_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"case_id" uuid NOT NULL,
	"event" text NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"comment" text,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"actor_label" text,
	"details" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "case_tags" (
	"case_id" uuid NOT NULL,
	"tag_id" uuid NOT NULL,
	CONSTRAINT "case_tags_case_id_tag_id_pk" PRIMARY KEY("case_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "cases" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"cve_id" text NOT NULL,
	"status" text NOT NULL,
	"severity" text,
	"severity_manual" boolean DEFAULT false NOT NULL,
	"notes" text,
	"exception_nature" text,
	"exception_measure" text,
	"exception_justification" text,
	"exception_expires_on" date,
	"exception_set_at" timestamp with time zone,
	"risk_id" uuid,
	"expiry_warned_for" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cases_status_valid" CHECK ("cases"."status" in ('nouveau', 'en_analyse', 'en_remediation', 'corrige', 'non_concerne', 'attenue', 'risque_accepte')),
	CONSTRAINT "cases_exception_whole" CHECK (("cases"."exception_nature" is null) = ("cases"."exception_expires_on" is null) and ("cases"."exception_nature" is null) = ("cases"."exception_justification" is null)),
	CONSTRAINT "cases_exception_nature_valid" CHECK ("cases"."exception_nature" in ('MITIGATED', 'ACCEPTED_RISK')),
	CONSTRAINT "cases_one_exception" CHECK ("cases"."exception_nature" is null or "cases"."risk_id" is null)
);
--> statement-breakpoint
CREATE TABLE "risks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"title" text NOT NULL,
	"owner" text NOT NULL,
	"justification" text NOT NULL,
	"review_on" date,
	"expires_on" date NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "risks_status_valid" CHECK ("risks"."status" in ('active', 'expiree'))
);
--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "exception_warning_days" integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE "case_history" ADD CONSTRAINT "case_history_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_tags" ADD CONSTRAINT "case_tags_case_id_cases_id_fk" FOREIGN KEY ("case_id") REFERENCES "public"."cases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "case_tags" ADD CONSTRAINT "case_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cases" ADD CONSTRAINT "cases_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cases" ADD CONSTRAINT "cases_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cases" ADD CONSTRAINT "cases_risk_id_risks_id_fk" FOREIGN KEY ("risk_id") REFERENCES "public"."risks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "risks" ADD CONSTRAINT "risks_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "case_history_case_idx" ON "case_history" USING btree ("case_id","id");--> statement-breakpoint
CREATE INDEX "case_tags_tag_idx" ON "case_tags" USING btree ("tag_id");--> statement-breakpoint
CREATE UNIQUE INDEX "cases_project_cve_uq" ON "cases" USING btree ("project_id","cve_id");--> statement-breakpoint
CREATE INDEX "cases_project_updated_idx" ON "cases" USING btree ("project_id","updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "cases_project_status_idx" ON "cases" USING btree ("project_id","status","updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "cases_exception_expiry_idx" ON "cases" USING btree ("exception_expires_on") WHERE "cases"."exception_expires_on" is not null;--> statement-breakpoint
CREATE INDEX "cases_risk_idx" ON "cases" USING btree ("risk_id") WHERE "cases"."risk_id" is not null;--> statement-breakpoint
CREATE INDEX "cases_cve_idx" ON "cases" USING btree ("cve_id");--> statement-breakpoint
CREATE INDEX "risks_org_idx" ON "risks" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "risks_active_expiry_idx" ON "risks" USING btree ("expires_on") WHERE "risks"."status" = 'active';--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_exception_warning_days_valid" CHECK ("projects"."exception_warning_days" between 0 and 365);