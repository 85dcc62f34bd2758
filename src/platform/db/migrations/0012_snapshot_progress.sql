-- Progress of the first-start snapshot, one row per source: written when the source's import
-- starts (completed_at null) and completed when it ends. A start that finds a row without
-- completed_at resumes the snapshot at the sources not completed (imports are idempotent).
CREATE TABLE "snapshot_progress" (
	"source" text PRIMARY KEY NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	"stats" jsonb
);
