-- Digests (issue 37): a notify node with delivery.mode = "digest" records one item per event
-- instead of sending; the digests-send job closes each due digest (claims its items in the
-- transaction that creates it) and sends it with the digest's id as the receiver's idempotency key.
CREATE TABLE "digests" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"workflow_id" uuid NOT NULL,
	"node_id" text NOT NULL,
	"project_id" uuid,
	"slot" timestamp with time zone NOT NULL,
	"period_start" timestamp with time zone,
	"closed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"item_count" integer DEFAULT 0 NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"lease_until" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"last_error" text,
	"sent" jsonb,
	CONSTRAINT "digests_status_valid" CHECK ("status" in ('pending', 'sent', 'failed', 'empty'))
);
--> statement-breakpoint
ALTER TABLE "digests" ADD CONSTRAINT "digests_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "digests_workflow_node_slot_uq" ON "digests" USING btree ("workflow_id","node_id",coalesce("project_id", '00000000-0000-0000-0000-000000000000'::uuid),"slot");
--> statement-breakpoint
CREATE INDEX "digests_pending_idx" ON "digests" USING btree ("closed_at") WHERE "status" = 'pending';
--> statement-breakpoint
CREATE TABLE "digest_items" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"workflow_id" uuid NOT NULL,
	"node_id" text NOT NULL,
	"project_id" uuid NOT NULL,
	"event_id" bigint NOT NULL,
	"run_id" uuid,
	"alert_id" uuid,
	"message" jsonb,
	"throttled" boolean DEFAULT false NOT NULL,
	"added_at" timestamp with time zone DEFAULT now() NOT NULL,
	"digest_id" uuid
);
--> statement-breakpoint
ALTER TABLE "digest_items" ADD CONSTRAINT "digest_items_workflow_id_workflows_id_fk" FOREIGN KEY ("workflow_id") REFERENCES "public"."workflows"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "digest_items" ADD CONSTRAINT "digest_items_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "digest_items" ADD CONSTRAINT "digest_items_digest_id_digests_id_fk" FOREIGN KEY ("digest_id") REFERENCES "public"."digests"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "digest_items_event_uq" ON "digest_items" USING btree ("workflow_id","node_id","event_id");
--> statement-breakpoint
CREATE INDEX "digest_items_pending_idx" ON "digest_items" USING btree ("workflow_id","node_id") WHERE "digest_id" IS NULL;
--> statement-breakpoint
CREATE INDEX "digest_items_digest_idx" ON "digest_items" USING btree ("digest_id");
