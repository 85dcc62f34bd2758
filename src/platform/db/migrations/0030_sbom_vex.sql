CREATE TABLE "stack_sboms" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"stack_id" uuid NOT NULL,
	"format" text NOT NULL,
	"spec_version" text NOT NULL,
	"encoding" text NOT NULL,
	"document_key" text NOT NULL,
	"document_version" integer,
	"name" text,
	"component_count" integer NOT NULL,
	"item_count" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stack_sboms_format_valid" CHECK ("stack_sboms"."format" in ('cyclonedx', 'spdx'))
);
--> statement-breakpoint
CREATE TABLE "vex_proposals" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"cve_id" text NOT NULL,
	"status" text DEFAULT 'proposee' NOT NULL,
	"vex_status" text NOT NULL,
	"justification" text,
	"impact_statement" text,
	"products" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"source_format" text NOT NULL,
	"source_document" text NOT NULL,
	"source_author" text,
	"source_timestamp" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	"decided_by" jsonb,
	"decision_comment" text,
	CONSTRAINT "vex_proposals_status_valid" CHECK ("vex_proposals"."status" in ('proposee', 'acceptee', 'rejetee'))
);
--> statement-breakpoint
ALTER TABLE "stack_items" ADD COLUMN "sbom_id" uuid;--> statement-breakpoint
ALTER TABLE "stack_items" ADD COLUMN "sbom_key" text;--> statement-breakpoint
ALTER TABLE "cases" ADD COLUMN "vex_justification" text;--> statement-breakpoint
ALTER TABLE "stack_sboms" ADD CONSTRAINT "stack_sboms_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stack_sboms" ADD CONSTRAINT "stack_sboms_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stack_sboms" ADD CONSTRAINT "stack_sboms_stack_id_stacks_id_fk" FOREIGN KEY ("stack_id") REFERENCES "public"."stacks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vex_proposals" ADD CONSTRAINT "vex_proposals_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "vex_proposals" ADD CONSTRAINT "vex_proposals_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "stack_sboms_stack_document_uq" ON "stack_sboms" USING btree ("stack_id","document_key");--> statement-breakpoint
CREATE UNIQUE INDEX "vex_proposals_project_cve_document_uq" ON "vex_proposals" USING btree ("project_id","cve_id","source_document");--> statement-breakpoint
CREATE INDEX "vex_proposals_project_status_idx" ON "vex_proposals" USING btree ("project_id","status","created_at" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "stack_items" ADD CONSTRAINT "stack_items_sbom_id_stack_sboms_id_fk" FOREIGN KEY ("sbom_id") REFERENCES "public"."stack_sboms"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stack_items_sbom_idx" ON "stack_items" USING btree ("sbom_id","sbom_key") WHERE "stack_items"."sbom_id" is not null;--> statement-breakpoint
ALTER TABLE "cases" ADD CONSTRAINT "cases_vex_justification_valid" CHECK ("cases"."vex_justification" in ('component_not_present', 'vulnerable_code_not_present', 'vulnerable_code_not_in_execute_path',
        'vulnerable_code_cannot_be_controlled_by_adversary', 'inline_mitigations_already_exist'));