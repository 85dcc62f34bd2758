DROP INDEX "public_vulns_aliases_idx";--> statement-breakpoint
CREATE INDEX "public_vulns_aliases_idx" ON "public_vulns" USING gin ("aliases") WITH (fastupdate=false);