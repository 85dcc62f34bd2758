ALTER TABLE "projects" ADD COLUMN "notification_lang" text DEFAULT 'fr' NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_notification_lang_valid" CHECK ("projects"."notification_lang" in ('fr', 'en'));--> statement-breakpoint
-- The projects' default workflows only open cases: an import raising thousands of alerts opens them all
-- (DEFAULT_WORKFLOW_MAX_RUNS_PER_HOUR in workflows.service.ts; other workflows keep 500 an hour).
UPDATE "workflows" SET "max_runs_per_hour" = 100000 WHERE "is_default" AND "max_runs_per_hour" = 500;
