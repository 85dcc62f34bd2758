-- Issue 37: the engine claims runs by batches, the runs of P1 events first. A run's priority is its
-- event's tier at dispatch (1 for P1 … 4 for P4; 3 for an event about no alert), and the index holds
-- the runs no worker took yet in the order they are claimed (priority, then age).
ALTER TABLE "workflow_runs" ADD COLUMN "priority" smallint DEFAULT 3 NOT NULL;--> statement-breakpoint
CREATE INDEX "workflow_runs_queue_idx" ON "workflow_runs" USING btree ("priority","started_at") WHERE "finished_at" is null and "lease_until" is null and "event_id" is not null;
