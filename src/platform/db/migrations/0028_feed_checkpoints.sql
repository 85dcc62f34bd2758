CREATE TABLE "feed_checkpoints" (
	"source" text NOT NULL,
	"address" text NOT NULL,
	"checkpoint" jsonb NOT NULL,
	"applied_until" timestamp with time zone,
	"records_applied" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "feed_checkpoints_source_address_pk" PRIMARY KEY("source","address")
);
--> statement-breakpoint
CREATE TABLE "feed_sources" (
	"source" text PRIMARY KEY NOT NULL,
	"lease_owner" text,
	"lease_until" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_error" text,
	"failures" integer DEFAULT 0 NOT NULL,
	"failing_since" timestamp with time zone,
	"last_applied" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- The validators of single-file addresses (KEV, EPSS, news) carry over: an upgraded service does not download them again.
INSERT INTO "feed_checkpoints" ("source", "address", "checkpoint", "updated_at")
SELECT "source", "url", jsonb_strip_nulls(jsonb_build_object('etag', "etag", 'lastModified', "last_modified")), "imported_at"
FROM "feed_sync_state" WHERE "imported_at" IS NOT NULL;
--> statement-breakpoint
DROP TABLE "feed_sync_state" CASCADE;