ALTER TABLE "stack_sboms" ADD COLUMN "fault_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "stack_sboms" ADD COLUMN "faults" jsonb DEFAULT '[]'::jsonb NOT NULL;
--> statement-breakpoint
CREATE TABLE "sbom_inventory" (
	"sbom_id" uuid NOT NULL,
	"ord" integer NOT NULL,
	"ref" text,
	"name" text NOT NULL,
	"version" text,
	"purl" text,
	"cpe" text,
	"raison" text NOT NULL,
	CONSTRAINT "sbom_inventory_sbom_id_ord_pk" PRIMARY KEY("sbom_id","ord")
);
--> statement-breakpoint
ALTER TABLE "sbom_inventory" ADD CONSTRAINT "sbom_inventory_sbom_id_stack_sboms_id_fk" FOREIGN KEY ("sbom_id") REFERENCES "public"."stack_sboms"("id") ON DELETE cascade ON UPDATE no action;
