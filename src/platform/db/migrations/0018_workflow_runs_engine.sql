-- Issue 15, the workflow engine: a run belongs to an outbox event (one per event and workflow: the unique
-- index makes a replayed dispatch a no-op), a project, and a lease that runs-recover reads through the
-- partial index of unfinished runs. Workflows get their hourly run limit.
ALTER TABLE "workflow_runs" ADD COLUMN "event_id" bigint;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "project_id" uuid;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "lease_token" uuid;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflows" ADD COLUMN "max_runs_per_hour" integer DEFAULT 500 NOT NULL;--> statement-breakpoint
ALTER TABLE "workflow_runs" ADD CONSTRAINT "workflow_runs_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workflow_runs_event_workflow_uq" ON "workflow_runs" USING btree ("event_id","workflow_id") WHERE "workflow_runs"."event_id" is not null;--> statement-breakpoint
CREATE INDEX "workflow_runs_unfinished_idx" ON "workflow_runs" USING btree ("lease_until") WHERE "workflow_runs"."finished_at" is null;--> statement-breakpoint
ALTER TABLE "workflows" ADD CONSTRAINT "workflows_max_runs_per_hour_valid" CHECK ("workflows"."max_runs_per_hour" >= 0);