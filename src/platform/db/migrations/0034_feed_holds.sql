-- A publisher's host that refused requests for a while (GitHub's rate limits): no request goes to it
-- before "until", whichever process syncs and across restarts (src/feeds/sync/holds.ts).
CREATE TABLE "feed_holds" (
	"key" text PRIMARY KEY NOT NULL,
	"until" timestamp with time zone NOT NULL,
	"reason" text NOT NULL,
	"strikes" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
