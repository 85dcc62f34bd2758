CREATE TABLE "feed_sync_state" (
	"url" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"etag" text,
	"last_modified" text,
	"status" text NOT NULL,
	"http_status" integer,
	"error" text,
	"checked_at" timestamp with time zone NOT NULL,
	"imported_at" timestamp with time zone
);
