-- maintenance-purge: finished runs past VIGIE_RUNS_RETENTION_DAYS (runsRepository.purgeFinished); unfinished runs are not in it.
CREATE INDEX "workflow_runs_finished_idx" ON "workflow_runs" USING btree ("finished_at") WHERE "workflow_runs"."finished_at" is not null;--> statement-breakpoint
-- maintenance-purge: processed events past VIGIE_EVENTS_RETENTION_DAYS (runsRepository.purgeProcessedEvents); pending events are not in it.
CREATE INDEX "outbox_events_processed_idx" ON "outbox_events" USING btree ("processed_at") WHERE "outbox_events"."processed_at" is not null;
