ALTER TABLE "api_usage" ADD COLUMN "granted" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- The windows counted before: what was granted is at most the plan's limit (the default limit of
-- organizations without a plan is a setting, unknown here: their count is kept).
UPDATE "api_usage" u SET "granted" = least(u."count", coalesce((
  SELECT p."max_api_calls_per_hour" FROM "organizations" o JOIN "plans" p ON p."id" = o."plan_id" WHERE o."id" = u."org_id"
), u."count"));
