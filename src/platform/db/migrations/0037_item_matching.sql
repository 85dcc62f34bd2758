-- Broad stack items (ADR 0037): an item whose candidates are too many for its request has its
-- alerts raised by the items-match job, in batches; this row is its progress.
CREATE TABLE "stack_item_matching" (
	"item_id" uuid PRIMARY KEY NOT NULL,
	"project_id" uuid NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"candidates" integer NOT NULL,
	"processed" integer DEFAULT 0 NOT NULL,
	"raised" integer DEFAULT 0 NOT NULL,
	"cursor" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stack_item_matching_state_valid" CHECK ("stack_item_matching"."state" in ('pending', 'running', 'done'))
);
--> statement-breakpoint
ALTER TABLE "stack_item_matching" ADD CONSTRAINT "stack_item_matching_item_id_stack_items_id_fk" FOREIGN KEY ("item_id") REFERENCES "public"."stack_items"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "stack_item_matching" ADD CONSTRAINT "stack_item_matching_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "stack_item_matching_open_idx" ON "stack_item_matching" USING btree ("created_at") WHERE "stack_item_matching"."state" <> 'done';
